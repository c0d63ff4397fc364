import { describe, expect, it } from "vitest";
import { readDocument } from "../src/model/document";
import { lineage, seedsOf } from "../src/model/lineage";
import { move } from "../src/model/moves";
import { expandAll, stateAtDepth } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { stackedBlocks } from "./helpers";

const ALL = { showParameters: true, showConstants: true };

// stackedBlocks(2), all open: x=n0; block 0: weight n1 -> linear n2 -> add n3 (+x); block 1: n4 -> n5 -> n6; out n7.
function open2() {
  const index = readDocument(stackedBlocks(2));
  return { index, visible: computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, ALL))) };
}

describe("lineage", () => {
  it("upstream of an op is everything it reads, transitively", () => {
    const { visible } = open2();
    const up = lineage(visible, ["n5"], true, false);
    expect([...up.items].sort()).toEqual(["n0", "n1", "n2", "n3", "n4", "n5"]);
    expect(up.edges.has("n3>n5")).toBe(true);
    expect(up.edges.has("n5>n6")).toBe(false);
  });

  it("downstream of an op is everything it feeds, and both is their union", () => {
    const { visible } = open2();
    const down = lineage(visible, ["n2"], false, true);
    expect([...down.items].sort()).toEqual(["n2", "n3", "n5", "n6", "n7"]);
    expect(down.items.has("n1")).toBe(false);
    const both = lineage(visible, ["n2"], true, true);
    expect([...both.items].sort()).toEqual(["n0", "n1", "n2", "n3", "n5", "n6", "n7"]);
  });

  it("of an open module starts from everything drawn inside it", () => {
    const { visible } = open2();
    expect(seedsOf(visible, "m1").sort()).toEqual(["n1", "n2", "n3"]);
    const down = lineage(visible, seedsOf(visible, "m1"), false, true);
    expect(down.containers.has("m3")).toBe(true);
    expect(down.items.has("n0")).toBe(false);
  });

  it("of a node inside a closed box is the box's", () => {
    const index = readDocument(stackedBlocks(2));
    const visible = computeVisibleGraph(index, stateAtDepth(index, 0, ALL));
    expect(seedsOf(visible, "n5")).toEqual([index.root]);
  });
});

describe("arrow moves", () => {
  it("go to the producer of the first input and the first consumer", () => {
    const { index, visible } = open2();
    expect(move(index, visible, "n2", "producer")).toBe("n0");
    expect(move(index, visible, "n2", "consumer")).toBe("n3");
    expect(move(index, visible, "n0", "consumer")).toBe("n2");
    expect(move(index, visible, "n7", "consumer")).toBeNull();
    expect(move(index, visible, "n0", "producer")).toBeNull();
  });

  it("left and right walk the siblings in execution order", () => {
    const { index, visible } = open2();
    expect(move(index, visible, "n1", "next")).toBe("n2");
    expect(move(index, visible, "n2", "previous")).toBe("n1");
    expect(move(index, visible, "m1", "next")).toBe("m3");
    expect(move(index, visible, "n0", "previous")).toBeNull();
  });

  it("from an open module, follow the edges that cross its frame", () => {
    const { index, visible } = open2();
    expect(move(index, visible, "m3", "producer")).toBe("n3");
    expect(move(index, visible, "m3", "consumer")).toBe("n7");
  });
});
