import { describe, expect, it } from "vitest";
import { readDocument } from "../src/model/document";
import { expandAll, stateAtDepth } from "../src/model/state";
import { edgeTensors, formatBytes, tensorBytes } from "../src/model/tensors";
import { computeVisibleGraph } from "../src/model/visible";
import { stackedBlocks } from "./helpers";

const ALL = { showParameters: true, showConstants: true };

describe("tensor sizes", () => {
  it("are numel times the element size of the dtype", () => {
    expect(tensorBytes({ shape: [2, 3, 4], dtype: "float32", device: "cpu" })).toBe(96);
    expect(tensorBytes({ shape: [7], dtype: "bfloat16", device: "cpu" })).toBe(14);
    expect(tensorBytes({ shape: [], dtype: "int64", device: "cpu" })).toBe(8);
    expect(tensorBytes({ shape: [5], dtype: "made-up", device: "cpu" })).toBeNull();
  });

  it("read in binary units", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.50 KiB");
    expect(formatBytes(3 * 1024 * 1024)).toBe("3.00 MiB");
  });
});

describe("edgeTensors", () => {
  it("names the producer and every consumer of the tensor a drawn edge carries", () => {
    const index = readDocument(stackedBlocks(2));
    const visible = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    // The input x feeds block 0's linear and its residual add.
    const edge = visible.edges.find((e) => e.source === "n0" && e.target === "n2");
    expect(edge).toBeDefined();
    const flows = edgeTensors(index, edge!);
    expect(flows).toHaveLength(1);
    expect(flows[0]!.source).toBe("n0");
    expect(flows[0]!.tensor.shape).toEqual([2, 4]);
    expect(flows[0]!.consumers.map((e) => e.target).sort()).toEqual(["n2", "n3"]);
    expect(flows[0]!.drawn).toBe(1);
  });

  it("keeps each distinct output of a merged edge once", () => {
    const index = readDocument(stackedBlocks(2));
    const visible = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    const into = visible.edges.filter((e) => e.source === "n0");
    expect(into.length).toBeGreaterThan(0);
    for (const e of into) {
      const flows = edgeTensors(index, e);
      expect(new Set(flows.map((f) => `${f.source}#${f.sourceOutput}`)).size).toBe(flows.length);
      expect(flows.reduce((n, f) => n + f.drawn, 0)).toBe(e.edges.length);
    }
  });
});
