import { describe, expect, it } from "vitest";
import type { GraphDocument } from "../src/model/document";
import { readDocument } from "../src/model/document";
import { formatMeasure, formatShare, insightOf } from "../src/model/insight";
import { expandAll, stateAtDepth } from "../src/model/state";
import { computeVisibleGraph } from "../src/model/visible";
import { drawnFigures, heatColor, logScale, textOn } from "../src/view/heat";
import { describeCounts, findTransitions, transitionsByModule } from "../src/model/transitions";
import { inputRanges } from "../src/view/numerics";
import { fixture, stackedBlocks } from "./helpers";

const ALL = { showParameters: true, showConstants: true };
const stats = (nan: number, min: number | null = 0, max: number | null = 1) => ({ min, max, mean: 0.5, std: 0.1, nan, posinf: 0, neginf: 0, zeros: 0 });

/** stackedBlocks(3) with FLOPs, bytes, time and stats on its ops, as insight-core writes them. */
function measured(): GraphDocument {
  const doc = stackedBlocks(3);
  let k = 1;
  for (const n of doc.nodes) {
    if (n.kind !== "op") continue;
    Object.assign(n, { flops: 100 * k, bytes: 32, time_us: k });
    for (const t of n.outputs ?? []) Object.assign(t, { stats: stats(n.label === "add" && k === 6 ? 4 : 0) });
    k++;
  }
  // Module totals: sums over each call's subtree.
  const ops = doc.nodes.filter((n) => n.kind === "op") as (GraphDocument["nodes"][number] & { time_us: number })[];
  const sub = (id: string): string[] => [id, ...doc.modules.filter((m) => m.parent === id).flatMap((m) => sub(m.id))];
  for (const m of doc.modules) {
    const mine = ops.filter((n) => sub(m.id).includes(n.module));
    Object.assign(m, { flops: mine.reduce((a, n) => a + (n.flops ?? 0), 0), bytes: mine.length * 32, time_us: mine.reduce((a, n) => a + n.time_us, 0) });
  }
  return doc;
}

describe("insight measures", () => {
  it("reads node and module figures, subtree sums and shares", () => {
    const index = readDocument(measured());
    const insight = insightOf(index);
    for (const key of ["flops", "bytes", "params", "time", "nonfinite"] as const) expect(insight.missing(key)).toBeNull();
    expect(insight.whole("flops")).toBe(100 * (1 + 2 + 3 + 4 + 5 + 6));
    expect(insight.whole("time")).toBe(21);
    expect(insight.whole("params")).toBe(48);
    // Non-finite counts are summed per subtree by the viewer: the one bad add is in block 3.
    expect(insight.whole("nonfinite")).toBe(4);
    expect(insight.module("nonfinite", index.modules.get("m5")!)).toBe(4);
    expect(insight.module("nonfinite", index.modules.get("m1")!)).toBe(0);
    expect(insight.modules("flops", ["m1", "m3"])).toBe(300 + 700);
    expect(insight.share("flops", 1050)).toBeCloseTo(0.5);
  });

  it("names what a document lacks and how to get it", () => {
    const insight = insightOf(readDocument(stackedBlocks(2)));
    expect(insight.missing("time")).toBe("time: trace with timing=True");
    expect(insight.missing("nonfinite")).toBe("non-finite: trace with stats=True");
    expect(insight.missing("flops")).toMatch(/FLOPs: this document has none/);
    expect(insight.missing("params")).toBeNull();
  });

  it("ranks hot spots largest first, without the model itself", () => {
    const insight = insightOf(readDocument(measured()));
    const { modules, ops } = insight.hotSpots("flops", 3);
    expect(modules.map((s) => s.id)).toEqual(["m5", "m3", "m6"]);
    expect(modules[0]?.share).toBeCloseTo(1100 / 2100);
    expect(ops.map((s) => s.value)).toEqual([600, 500, 400]);
    expect(ops.every((s) => s.kind === "op")).toBe(true);
    // By their own ops only, the blocks' adds and the Linears' matmuls interleave.
    expect(insight.hotSpots("flops", 3, true).modules.map((s) => [s.id, s.value])).toEqual([["m5", 600], ["m6", 500], ["m3", 400]]);
    expect(insight.hotSpots("params", 3, true).modules.every((s) => s.detail === "Linear")).toBe(true);
  });

  it("gives closed boxes their subtree totals and folded runs the sum of their calls", () => {
    const index = readDocument(measured());
    const insight = insightOf(index);
    const folded = computeVisibleGraph(index, stateAtDepth(index, 1, ALL));
    const run = [...folded.items.values()].find((i) => i.type === "box");
    expect(run?.type === "box" && run.repeat).toBe(3);
    expect(drawnFigures(insight, "flops", folded).get(run!.id)).toBe(2100);
    const open = computeVisibleGraph(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    const figures = drawnFigures(insight, "time", open);
    const linear = index.doc.nodes.find((n) => n.kind === "op")!;
    expect(figures.get(linear.id)).toBe(1);
    expect(figures.get("m0")).toBe(21);
  });

  it("reads vista-core's FLOPs and bytes from a real trace", () => {
    const index = readDocument(fixture("bert"));
    const insight = insightOf(index);
    expect(insight.missing("flops")).toBeNull();
    const opsTotal = index.doc.nodes.reduce((a, n) => a + (n.flops ?? 0), 0);
    expect(insight.whole("flops")).toBe(opsTotal);
  });
});

describe("heat scale", () => {
  it("is a log scale over positive figures", () => {
    const s = logScale([0, 10, 1000, 100, Number.NaN])!;
    expect([s.min, s.max]).toEqual([10, 1000]);
    expect(s.t(100)).toBeCloseTo(0.5);
    expect(logScale([0, -1])).toBeNull();
    expect(logScale([5, 5])!.t(5)).toBe(1);
  });

  it("runs from quiet to loud in both themes, with readable text", () => {
    const lum = (hex: string) => parseInt(hex.slice(1, 3), 16) + parseInt(hex.slice(3, 5), 16) + parseInt(hex.slice(5, 7), 16);
    // Light: pale to dark; dark: dark to bright.
    expect(lum(heatColor("light", 0))).toBeGreaterThan(lum(heatColor("light", 1)));
    expect(lum(heatColor("dark", 0))).toBeLessThan(lum(heatColor("dark", 1)));
    expect(heatColor("light", 0.5)).toMatch(/^#[0-9a-f]{6}$/);
    expect(textOn(heatColor("light", 0))).toBe("#1a1a1a");
    expect(textOn(heatColor("light", 1))).toBe("#ffffff");
    expect(textOn(heatColor("dark", 0))).toBe("#ffffff");
    expect(textOn(heatColor("dark", 1))).toBe("#1a1a1a");
  });

  it("formats figures in their units", () => {
    expect(formatMeasure("flops", 2.1e9)).toBe("2.10 GFLOP");
    expect(formatMeasure("flops", 512)).toBe("512 FLOP");
    expect(formatMeasure("bytes", 3 * 1024 * 1024)).toBe("3.00 MiB");
    expect(formatMeasure("params", 1_230_000)).toBe("1.23 M");
    expect(formatMeasure("time", 350)).toBe("350 µs");
    expect(formatMeasure("time", 12_500)).toBe("12.5 ms");
    expect(formatMeasure("nonfinite", 3)).toBe("3 NaN/Inf");
    expect(formatShare(0.1234)).toBe("12%");
    expect(formatShare(0.0123)).toBe("1.2%");
    expect(formatShare(0.00001)).toBe("<0.1%");
  });
});

describe("transitions", () => {
  it("finds casts, device copies and layout copies from dtypes, devices and names", () => {
    const doc = stackedBlocks(3);
    const ops = doc.nodes.filter((n) => n.kind === "op");
    const [lin0, add0, lin1, add1, lin2] = ops;
    // The first linear's output goes out as bf16 (autocast-style), its add as cuda, a contiguous after.
    lin0!.outputs = [{ shape: [2, 4], dtype: "bfloat16", device: "cpu" }];
    add0!.outputs = [{ shape: [2, 4], dtype: "bfloat16", device: "cuda:0" }];
    for (const e of doc.edges) {
      if (e.source === lin0!.id) e.tensor = { ...e.tensor, dtype: "bfloat16" };
    }
    lin1!.name = "torch.Tensor.contiguous";
    add1!.name = "torch.Tensor.eq";
    add1!.outputs = [{ shape: [2, 4], dtype: "bool", device: "cpu" }];
    lin2!.name = "torch.Tensor.reshape";
    const index = readDocument(doc);
    const found = findTransitions(index);
    expect(found.get(lin0!.id)).toEqual({ node: lin0!.id, kind: "cast", text: "fp32→bf16" });
    expect(found.get(add0!.id)?.kind).toBe("device");
    expect(found.get(add0!.id)?.text).toBe("cpu→cuda:0");
    expect(found.get(lin1!.id)?.kind).toBe("copy");
    // A comparison's bool result is no cast; a reshape of an add's result is a view.
    expect(found.has(add1!.id)).toBe(false);
    expect(found.has(lin2!.id)).toBe(false);
    const byModule = transitionsByModule(index, found);
    expect(describeCounts(byModule.get("m0")!)).toBe("1 dtype cast, 1 device copy, 1 layout copy");
  });
});

describe("numerics", () => {
  it("gives each input of an op its producer's range, and formats stats", () => {
    const doc = stackedBlocks(2);
    const [lin0, add0] = doc.nodes.filter((n) => n.kind === "op");
    lin0!.outputs = [{ shape: [2, 4], dtype: "float32", device: "cpu", stats: { min: -1.5, max: 70000, mean: 0.25, std: null, nan: 0, posinf: 2, neginf: 0, zeros: 3 } }];
    const index = readDocument(doc);
    const rows = inputRanges(index, add0!.id);
    expect(rows[0]).toEqual(["#0 ← linear", "2×4 float32: min -1.5 · max 7.00e+4 · mean 0.25 · std — · 2 +Inf · 3 zeros"]);
    expect(rows[1]?.[1]).toBe("2×4 float32: no statistics (not an op output)");
  });
});
