import { instance } from "@viz-js/viz";
import { beforeAll, describe, expect, it } from "vitest";
import { LayoutEngine, type RenderDot } from "../src/layout/engine";
import { buildLayoutGraph } from "../src/layout/request";
import { MAX_MEMBERS, SEGMENT_MEMBERS, segmentGraph } from "../src/layout/segments";
import type { LayoutResult } from "../src/layout/types";
import { moduleAncestry, readDocument, type GraphIndex } from "../src/model/document";
import { search } from "../src/model/search";
import { expandAll, maxDepth, reveal, stateAtDepth, type ViewState } from "../src/model/state";
import { computeVisibleGraph, type VisibleGraph } from "../src/model/visible";
import { deepNesting, longChain } from "./helpers";

const ALL = { showParameters: true, showConstants: true };
let graphviz: RenderDot;

beforeAll(async () => {
  const viz = await instance();
  graphviz = (dot) => {
    const r = viz.render(dot, { format: "json0", yInvert: true });
    if (r.status !== "success") throw new Error(r.errors.map((e) => e.message).join("; "));
    return r.output;
  };
});

function run(index: GraphIndex, state: ViewState, render: RenderDot): { v: VisibleGraph; r: LayoutResult } {
  const v = computeVisibleGraph(index, state);
  const graph = buildLayoutGraph(v, { item: () => ({ width: 60, height: 26 }), header: () => ({ height: 40, minWidth: 120, control: 40 }) }, () => "2×4");
  return { v, r: new LayoutEngine(render).layout(graph) };
}

/**
 * Graphviz's json0 for the DOT the engine writes for a module whose members form a column:
 * elements stacked top to bottom 20 points apart, ports above and below, straight edges. It
 * stands in for Graphviz where 10,000 nested modules would take 10,000 runs of it.
 */
const columnRender: RenderDot = (dot) => {
  const sizes = [...dot.matchAll(/^e(\d+)\[.*?width=([\d.]+),height=([\d.]+)/gm)].map((m) => ({
    name: `e${m[1]}`,
    width: Number(m[2]) * 72,
    height: Number(m[3]) * 72,
  }));
  const width = Math.max(10, ...sizes.map((s) => s.width));
  const objects: { _gvid: number; name: string; pos: string }[] = [];
  let y = 0;
  const at = (name: string, h: number): void => {
    objects.push({ _gvid: objects.length, name, pos: `${width / 2},${y + h / 2}` });
    y += h + 20;
  };
  for (const p of dot.match(/\bi\d+(?=\[shape=point)/g) ?? []) at(p, 2);
  for (const s of sizes) at(s.name, s.height);
  for (const p of dot.match(/\bo\d+(?=\[shape=point)/g) ?? []) at(p, 2);
  const centre = new Map(objects.map((o) => [o.name, o.pos]));
  const edges = [...dot.matchAll(/^(\w+)->(\w+)\[comment=(\d+)/gm)].map((m, k) => {
    const [a, b] = [centre.get(m[1] as string) ?? "0,0", centre.get(m[2] as string) ?? "0,0"];
    return { _gvid: k, comment: m[3], pos: `${a} ${a} ${b} ${b}` };
  });
  return JSON.stringify({ bb: `0,0,${width},${y}`, objects, edges });
};

describe("10,000 nested module calls", () => {
  const doc = deepNesting(10_000);

  it("are read, searched and revealed without recursion", () => {
    const index = readDocument(doc);
    expect(index.moduleDepth.get("m10000")).toBe(10_000);
    expect(index.moduleOrder).toHaveLength(10_001);
    expect(index.moduleFirstNode.get("m0")).toBe(0);
    expect(index.moduleFirstNode.get("m1")).toBe(1);
    expect(maxDepth(index)).toBe(10_001);
    expect(moduleAncestry(index, "m10000")).toHaveLength(10_001);
    expect(search(index, "relu").map((h) => h.id)).toEqual(["n1"]);
    const revealed = reveal(index, stateAtDepth(index, 1, ALL), "n1");
    expect(revealed.open.size).toBe(10_001);
    const v = computeVisibleGraph(index, revealed);
    expect(v.containers.size).toBe(10_001);
    expect(v.nodeOwner.get("n1")).toBe("n1");
    expect(computeVisibleGraph(index, expandAll(index, revealed)).containers.size).toBe(10_001);
  });

  it("are drawn as one closed box at depth 1 (Graphviz)", () => {
    const index = readDocument(doc);
    const { v, r } = run(index, stateAtDepth(index, 1, ALL), graphviz);
    expect([...v.items.keys()].sort()).toEqual(["m1", "n0", "n2"]);
    expect(r.edges.map((e) => e.id).sort()).toEqual(["m1>n2", "n0>m1"]);
  });

  it("are laid out fully open, each inside the one before", () => {
    const index = readDocument(doc);
    const { r } = run(index, reveal(index, stateAtDepth(index, 1, ALL), "n1"), columnRender);
    for (let d = 1; d <= 10_000; d++) {
      const [outer, inner] = [r.rects[`m${d - 1}`], r.rects[`m${d}`]];
      expect(inner !== undefined && outer !== undefined && inner.y > outer.y && inner.x >= outer.x).toBe(true);
    }
    const op = r.rects["n1"];
    expect(op).toBeDefined();
    // The input's edge goes down through every border to the op (the stand-in ends it at its centre).
    const end = r.edges.find((e) => e.id === "n0>n1")?.points.at(-1);
    expect(end !== undefined && end.y >= op!.y && end.y <= op!.y + op!.height).toBe(true);
    expect(r.height).toBeGreaterThan(10_000 * 40);
  }, 60_000);
});

describe("a 20,000-op chain in one module", () => {
  const doc = longChain(20_000);

  it("is split into segments of the layout's own, which leave no trace in the result", () => {
    const index = readDocument(doc);
    const v = computeVisibleGraph(index, stateAtDepth(index, 2, ALL));
    const graph = buildLayoutGraph(v, { item: () => ({ width: 60, height: 26 }), header: () => ({ height: 40, minWidth: 120, control: 40 }) }, () => "");
    const { graph: split, segments } = segmentGraph(graph);
    expect(segments.size).toBe(20_000 / SEGMENT_MEMBERS);
    expect(split.containers.every((c) => c.members.length <= MAX_MEMBERS)).toBe(true);
    const members = split.containers.filter((c) => segments.has(c.id)).flatMap((c) => c.members);
    expect(members).toEqual(v.containers.get("m1")?.members);
    // A container short enough is left as it is.
    expect(segmentGraph(buildLayoutGraph(computeVisibleGraph(index, stateAtDepth(index, 1, ALL)), { item: () => ({ width: 1, height: 1 }), header: () => ({ height: 1, minWidth: 1, control: 40 }) }, () => "")).segments.size).toBe(0);
  });

  it("is laid out by Graphviz, every op below the one before and every edge drawn", () => {
    const index = readDocument(doc);
    const { v, r } = run(index, stateAtDepth(index, 2, ALL), graphviz);
    expect(Object.keys(r.rects).every((id) => !id.includes("\u0000"))).toBe(true);
    const body = r.rects["m1"]!;
    let previous = -Infinity;
    for (let i = 1; i <= 20_000; i++) {
      const op = r.rects[`n${i}`]!;
      expect(op.y > previous && op.x >= body.x && op.x + op.width <= body.x + body.width && op.y + op.height <= body.y + body.height).toBe(true);
      previous = op.y;
    }
    const routes = new Map(r.edges.map((e) => [e.id, e]));
    expect(routes.size).toBe(v.edges.length);
    for (const e of v.edges) {
      const route = routes.get(e.id)!;
      const end = route.points.at(-1)!;
      const target = r.rects[e.target]!;
      // Graphviz writes coordinates to six significant digits: 10 points apart a million points down.
      const slack = 3 + 1e-4 * target.y;
      expect(route.points.length >= 4 && Math.abs(end.y - target.y) < slack, `${e.id}: ${JSON.stringify(end)} ${JSON.stringify(target)}`).toBe(true);
    }
    expect(r.stats.graphvizRuns).toBeLessThan(6);
  }, 60_000);
});
