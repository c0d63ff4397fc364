import { instance } from "@viz-js/viz";
import { beforeAll, describe, expect, it } from "vitest";
import { dotLabel, toDot } from "../src/layout/dot";
import { LayoutEngine } from "../src/layout/engine";
import { parseGraphvizJson } from "../src/layout/graphviz";
import { buildLayoutGraph } from "../src/layout/request";
import type { LayoutResult, Rect } from "../src/layout/types";
import { readDocument, type GraphIndex } from "../src/model/document";
import { formatShapes } from "../src/model/format";
import { expandAll, stateAtDepth, toggle, type ViewState } from "../src/model/state";
import { computeVisibleGraph, type VisibleGraph } from "../src/model/visible";
import { fixture, stackedBlocks } from "./helpers";

let engine: LayoutEngine;
let render: (dot: string) => string;

beforeAll(async () => {
  const viz = await instance();
  render = (dot) => {
    const r = viz.render(dot, { format: "json0", yInvert: true });
    if (r.status !== "success") throw new Error(r.errors.map((e) => e.message).join("; "));
    return r.output;
  };
  engine = new LayoutEngine(render);
});

const ALL = { showParameters: true, showConstants: true };

function run(index: GraphIndex, state: ViewState, e: LayoutEngine = engine): { v: VisibleGraph; r: LayoutResult } {
  const v = computeVisibleGraph(index, state);
  const graph = buildLayoutGraph(
    v,
    { item: (id) => ({ width: 60 + id.length * 3, height: v.items.get(id)?.type === "box" ? 54 : 26 }), header: () => ({ height: 40, minWidth: 120 }) },
    (id) => formatShapes(v.edges.find((x) => x.id === id)?.tensors ?? []),
  );
  return { v, r: e.layout(graph) };
}

const overlaps = (a: Rect, b: Rect): boolean =>
  a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
const inside = (a: Rect, b: Rect): boolean =>
  a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;

function checkGeometry(v: VisibleGraph, r: LayoutResult): void {
  for (const c of v.containers.values()) {
    const outer = r.rects[c.id]!;
    const rects = c.members.map((m) => r.rects[m]!);
    for (const [i, a] of rects.entries()) {
      expect(inside(a, outer), `${c.members[i]} inside ${c.id}`).toBe(true);
      for (const b of rects.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
    }
  }
  for (const e of v.edges) {
    const route = r.edges.find((x) => x.id === e.id);
    expect(route, e.id).toBeDefined();
    const end = route!.points[route!.points.length - 1]!;
    const t = r.rects[e.target]!;
    // The route ends on the target's border.
    expect(end.x).toBeGreaterThanOrEqual(t.x - 2);
    expect(end.x).toBeLessThanOrEqual(t.x + t.width + 2);
    expect(end.y).toBeGreaterThanOrEqual(t.y - 2);
    expect(end.y).toBeLessThanOrEqual(t.y + t.height + 2);
    expect((route!.points.length - 1) % 3).toBe(0);
  }
}

describe("dot", () => {
  it("never passes model text to Graphviz: labels are restricted to safe characters", () => {
    expect(dotLabel("1×16×64")).toBe('"1x16x64"');
    expect(dotLabel('a"];evil[label="<b>')).toBe('"a___evil_label___b_"');
  });

  it("writes canonical names only, so identical modules give identical text", () => {
    const dot = toDot({ elements: [{ width: 72, height: 36 }], inPorts: 1, outPorts: 0, edges: [{ from: "i0", to: "e0", label: '"3x4"' }] });
    expect(dot).toContain("e0[width=1.0000,height=0.5000]");
    expect(dot).toContain("{rank=source;i0");
    expect(dot).toContain('i0->e0[comment=0,label="3x4"]');
  });

  it("maps Graphviz edges back by declaration index, whatever order Graphviz lists them in", () => {
    const dot = 'digraph{node[shape=box];a;b;c;b->c[comment=0,label="x"];a->b[comment=1]}';
    const g = parseGraphvizJson(render(dot));
    const a = g.nodes.get("a")!;
    const c = g.nodes.get("c")!;
    expect(g.edges[1]!.points[0]!.y).toBeGreaterThan(a.y);
    expect(g.edges[0]!.points[g.edges[0]!.points.length - 1]!.y).toBeLessThan(c.y);
    expect(g.edges[0]!.label).not.toBeNull();
  });
});

describe("layout engine", () => {
  it("lays out the MLP at depth 1 without overlaps, edges ending at their targets", () => {
    const index = readDocument(fixture("mlp"));
    const { v, r } = run(index, stateAtDepth(index, 1, ALL));
    checkGeometry(v, r);
    // Top to bottom: input above fc1 above act above fc2 above output.
    const ys = ["n0", "m1", "m2", "m3", "n8"].map((id) => r.rects[id]!.y);
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
  });

  it("lays out the fully open BERT graph without overlapping siblings", () => {
    const index = readDocument(fixture("bert"));
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    checkGeometry(v, r);
  });

  it("runs Graphviz once per distinct module structure: 24 identical blocks cost one layout", () => {
    const index = readDocument(stackedBlocks(24));
    const fresh = new LayoutEngine(render);
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)), fresh);
    checkGeometry(v, r);
    expect(v.containers.size).toBe(1 + 24 * 2);
    // root, first block, middle blocks, last block, and the Linear inside: far fewer than 49.
    expect(r.stats.graphvizRuns).toBeLessThanOrEqual(6);
    expect(r.stats.cacheHits).toBeGreaterThanOrEqual(49 - 6);
    // A +/- on one block reuses every other module's layout.
    const again = run(index, toggle(index, expandAll(index, stateAtDepth(index, 1, ALL)), "m9"), fresh).r;
    expect(again.stats.graphvizRuns).toBeLessThanOrEqual(1);
  });

  it("routes an edge that enters a nested open module through its border", () => {
    const index = readDocument(fixture("mlp"));
    const { v, r } = run(index, toggle(index, stateAtDepth(index, 1, ALL), "m1"));
    checkGeometry(v, r);
    const route = r.edges.find((e) => e.id === "n0>n3")!;
    const box = r.rects["m1"]!;
    const start = route.points[0]!;
    expect(start.y).toBeLessThan(box.y);
    expect(route.points.some((p) => p.y > box.y + 40)).toBe(true);
  });
});
