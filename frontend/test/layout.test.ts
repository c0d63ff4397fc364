import { beforeAll, describe, expect, it } from "vitest";
import { ARC_BUDGET, ARC_GAP, arcEdges } from "../src/layout/arcs";
import { borderField, dotLabel, FIELD_WIDTH, fieldCount, leads, outcomes, toDot, type LocalEdge } from "../src/layout/dot";
import { LayoutEngine } from "../src/layout/engine";
import { LABEL_CLEARANCE } from "../src/layout/labels";
import { parseGraphvizJson } from "../src/layout/graphviz";
import { buildLayoutGraph } from "../src/layout/request";
import type { LayoutResult, Point, Rect } from "../src/layout/types";
import { readDocument, type GraphIndex } from "../src/model/document";
import { formatShapes } from "../src/model/format";
import { expandAll, stateAtDepth, toggle, type ViewState } from "../src/model/state";
import { computeVisibleGraph, type VisibleGraph } from "../src/model/visible";
import { fixture, graphvizRender, ropeStack, stackedBlocks } from "./helpers";

/** The header controls' width the tests' sizer gives (the view's for a module that is not in an unfolded run). */
const CONTROL_ZONE = 40;
let engine: LayoutEngine;
let render: (dot: string) => string;

beforeAll(async () => {
  render = await graphvizRender();
  engine = new LayoutEngine(render);
});

const ALL = { showParameters: true, showConstants: true };

function run(index: GraphIndex, state: ViewState, e: LayoutEngine = engine): { v: VisibleGraph; r: LayoutResult } {
  const v = computeVisibleGraph(index, state);
  const graph = buildLayoutGraph(
    v,
    { item: (id) => ({ width: 60 + id.length * 3, height: v.items.get(id)?.type === "box" ? 54 : 26 }), header: () => ({ height: 40, minWidth: 120, control: 40 }) },
    (e) => formatShapes(e.tensors),
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

  it("attaches edges to an open module at its bottom and top, where its contents continue them", () => {
    const dot = toDot({
      elements: [{ width: 72, height: 36 }, { width: 200, height: 120, open: true }, { width: 72, height: 36 }],
      inPorts: 0,
      outPorts: 0,
      edges: [{ from: "e0", to: "e1", label: "" }, { from: "e1", to: "e2", label: '"2x3"' }, { from: "e0", to: "e2", label: "" }],
    });
    expect(dot).toContain("e0->e1[comment=0,headport=n];");
    expect(dot).toContain('e1->e2[comment=1,tailport=s,label="2x3"];');
    expect(dot).toContain("e0->e2[comment=2];");
  });

  it("draws an open module as a record of fields, so that edges can meet its border at a field", () => {
    const graph = {
      elements: [{ width: 72, height: 36 }, { width: 240, height: 120, open: true }, { width: 72, height: 36 }],
      inPorts: 0,
      outPorts: 0,
      edges: [{ from: "e0", to: "e1", label: "", headField: 12 }, { from: "e1", to: "e2", label: "", tailField: 2 }],
    };
    const dot = toDot(graph);
    expect(fieldCount(240)).toBe(240 / FIELD_WIDTH);
    expect(dot).toContain(`e1[shape=record,label="${Array.from({ length: 240 / FIELD_WIDTH }, (_, f) => `<p${f}>`).join("|")}"`);
    expect(dot).toContain('e0->e1[comment=0,headport="p12:n"];');
    expect(dot).toContain('e1->e2[comment=1,tailport="p2:s"];');
    // The record is as big as asked, and the edges meet it at their fields' borders.
    const g = parseGraphvizJson(render(dot));
    const box = g.nodes.get("e1")!;
    expect(g.height).toBeCloseTo(36 + 120 + 36 + 2 * 0.28 * 72, 0);
    const into = g.edges[0]!.points.at(-1)!;
    const out = g.edges[1]!.points[0]!;
    expect(into.x - (box.x - 120)).toBeCloseTo(12.5 * FIELD_WIDTH, 0);
    expect(into.y).toBeCloseTo(box.y - 60, 0);
    expect(out.x - (box.x - 120)).toBeCloseTo(2.5 * FIELD_WIDTH, 0);
    expect(out.y).toBeCloseTo(box.y + 60, 0);
  });

  it("keeps the field of an edge into a module clear of its header's +/- control", () => {
    expect(borderField(240, 230, true, CONTROL_ZONE)).toBe(borderField(240, 240 - CONTROL_ZONE, true, CONTROL_ZONE));
    expect(borderField(240, 230, true, 80)).toBe(borderField(240, 240 - 80, true, 80)); // wider controls (a fold button)
    expect(borderField(240, 230, false, CONTROL_ZONE)).toBe(fieldCount(240) - 1); // the bottom border has no control
    expect(borderField(240, 0, true, CONTROL_ZONE)).toBe(0);
    expect(borderField(240, 121, true, CONTROL_ZONE)).toBe(Math.floor(121 / FIELD_WIDTH));
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

/**
 * The segments of every route that cross an open module's top or bottom border, and how many of
 * them cross it nearly straight (at most `slack` points to the side between the border and the
 * module's own port).
 */
function borderCrossings(v: VisibleGraph, r: LayoutResult, slack: number): { crossings: number; straight: number } {
  let crossings = 0;
  let straight = 0;
  for (const route of r.edges) {
    const pts = route.points;
    for (const c of v.containers.values()) {
      if (c.id === v.root) continue;
      const box = r.rects[c.id]!;
      const within = (p: Point): boolean => p.x > box.x && p.x < box.x + box.width;
      for (let k = 0; k + 3 < pts.length; k += 3) {
        const [a, b] = [pts[k]!, pts[k + 3]!];
        // Entering: from a point on the top border to one below it; leaving: from one above the
        // bottom border to a point on it.
        const entering = Math.abs(a.y - box.y) <= 2 && within(a) && b.y > box.y + 2;
        const leaving = Math.abs(b.y - (box.y + box.height)) <= 2 && within(b) && a.y < box.y + box.height - 2;
        if (!entering && !leaving) continue;
        crossings++;
        if (Math.abs(b.x - a.x) <= slack) straight++;
      }
    }
  }
  return { crossings, straight };
}

describe("edges across open modules' borders", () => {
  it("meet an open module's border above its own port, so they cross it (and its header) nearly straight", () => {
    const index = readDocument(fixture("bert"));
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    checkGeometry(v, r);
    // Nearly straight: at most half a field (plus rounding) to the side.
    const { crossings, straight } = borderCrossings(v, r, FIELD_WIDTH / 2 + 2);
    expect(crossings).toBeGreaterThan(100);
    // Meeting every border at its centre, only 93 of the 248 crossings were that straight; at the
    // field over the port, 205; with blocks widened clear of the +/− control (below), 232.
    expect(straight / crossings).toBeGreaterThan(0.9);
  });

  it("keep clear of a header's +/− control: a block is widened until its entry ports are left of it", () => {
    const index = readDocument(fixture("mlp"));
    const { v, r } = run(index, toggle(index, stateAtDepth(index, 1, ALL), "m1"));
    checkGeometry(v, r);
    const box = r.rects["m1"]!;
    // x -> fc1's linear: Graphviz puts fc1's entry port at the right of its layout, where the
    // control is; the block is wider on that side, so the edge still crosses the header straight,
    // left of the control's zone.
    const enter = r.edges.find((e) => e.id === "n0>n3")!.points;
    const atBorder = enter.findIndex((p) => Math.abs(p.y - box.y) <= 2);
    expect(atBorder).toBeGreaterThanOrEqual(0);
    expect(enter[atBorder]!.x).toBeLessThanOrEqual(box.x + box.width - CONTROL_ZONE + FIELD_WIDTH / 2);
    const members = ["n1", "n2", "n3"].map((id) => r.rects[id]!);
    const left = Math.min(...members.map((m) => m.x)) - box.x;
    const right = box.x + box.width - Math.max(...members.map((m) => m.x + m.width));
    expect(right).toBeGreaterThan(left + FIELD_WIDTH);
    // Into fc1 and out of it (fc1's linear -> act): both straight.
    const { crossings, straight } = borderCrossings(v, r, FIELD_WIDTH / 2 + 2);
    expect(crossings).toBe(2);
    expect(straight).toBe(2);
  });
});

/**
 * The routes that go sideways more than once although their ends are less than 24 points apart
 * sideways: the measure `wiggles` of tests-integration/browser/test_viewer_routing.py, on each
 * route's Bézier curves sampled every 2 points of their length instead of the drawn path.
 */
function wiggles(r: LayoutResult): string[] {
  const found: string[] = [];
  for (const route of r.edges) {
    const [first, ...rest] = route.points;
    if (first === undefined) continue;
    const dense: Point[] = [first];
    for (let k = 0; k + 2 < rest.length; k += 3) {
      const [p0, c1, c2, p1] = [dense[dense.length - 1]!, rest[k]!, rest[k + 1]!, rest[k + 2]!];
      for (let i = 1; i <= 200; i++) {
        const t = i / 200;
        const u = 1 - t;
        const at = (a: number, b: number, c: number, d: number): number => u * u * u * a + 3 * u * u * t * b + 3 * u * t * t * c + t * t * t * d;
        dense.push({ x: at(p0.x, c1.x, c2.x, p1.x), y: at(p0.y, c1.y, c2.y, p1.y) });
      }
    }
    // Every 2 points along the curve, as the browser test samples the drawn path.
    const pts: Point[] = [first];
    let along = 0;
    dense.forEach((p, i) => {
      if (i === 0) return;
      along += Math.hypot(p.x - dense[i - 1]!.x, p.y - dense[i - 1]!.y);
      if (along >= 2 || i === dense.length - 1) [along] = [0, pts.push(p)];
    });
    let runs = 0;
    let sideways = false;
    for (let i = 1; i < pts.length; i++) {
      const [a, b] = [pts[i - 1]!, pts[i]!];
      const now = Math.abs(b.x - a.x) / Math.max(Math.hypot(b.x - a.x, b.y - a.y), 1e-9) > 0.35;
      if (now && !sideways) runs++;
      sideways = now;
    }
    if (runs >= 2 && Math.abs(dense[dense.length - 1]!.x - first.x) < 24) found.push(route.id);
  }
  return found;
}

describe("chains of open modules", () => {
  it("do not step sideways where they cross a module's border", () => {
    const index = readDocument(fixture("bert"));
    const { r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    // Joined at the centre of the field nearest to a port anywhere in it, 3 edges wiggled.
    expect(wiggles(r).length).toBeLessThanOrEqual(1);
  });
});

describe("edges into an open module's header", () => {
  it("cross it right of the header's text: a block's contents move right until its entry ports are", () => {
    const index = readDocument(fixture("mlp"));
    const state = toggle(index, stateAtDepth(index, 1, ALL), "m1");
    const v = computeVisibleGraph(index, state);
    const title = 250;
    const graph = buildLayoutGraph(
      v,
      { item: (id) => ({ width: 60 + id.length * 3, height: 26 }), header: () => ({ height: 40, minWidth: 300, control: 40, title }) },
      () => "",
    );
    const r = engine.layout(graph);
    checkGeometry(v, r);
    const box = r.rects["m1"]!;
    const enter = r.edges.find((e) => e.id === "n0>n3")!.points;
    const atBorder = enter.filter((p) => p.y >= box.y - 0.5 && p.y <= box.y + 40);
    expect(atBorder.length).toBeGreaterThan(0);
    // With the contents centred in the 300 px wide block, the edge crossed the header over the text.
    for (const p of atBorder) expect(p.x - box.x).toBeGreaterThanOrEqual(title - 0.5);
    // ... and straight down through it, to the port over the op it enters.
    expect(Math.max(...atBorder.map((p) => p.x)) - Math.min(...atBorder.map((p) => p.x))).toBeLessThanOrEqual(0.5);
    expect(box.x + box.width - 40).toBeGreaterThanOrEqual(atBorder[0]!.x);
  });

  it("reads Graphviz's curves without the overshoot of far-apart ranks close together", () => {
    // One cubic from (0,0) to (300,32) whose control points reach 139 px below and above its ends.
    const json = JSON.stringify({ bb: "0,0,300,200", objects: [], edges: [{ _gvid: 0, comment: "0", pos: "0,0 0,139 300,-107 300,32" }] });
    const [a, b, c, d] = parseGraphvizJson(json).edges[0]!.points;
    for (const p of [b!, c!]) expect(p.y >= a!.y && p.y <= d!.y, `control point at y=${p.y}`).toBe(true);
    expect([b!.x, c!.x]).toEqual([0, 300]); // still leaving and arriving vertically
  });
});

describe("edge labels", () => {
  /** Labels nearer than LABEL_CLEARANCE times their distance to their own edge to an edge of another value. */
  function confusedLabels(v: VisibleGraph, r: LayoutResult): string[] {
    const source = new Map(v.edges.map((e) => [e.id, e.source]));
    const along = (points: readonly Point[]): Point[] => {
      const out: Point[] = [];
      for (let i = 0; i + 3 < points.length; i += 3) {
        const [a, b, c, d] = [points[i]!, points[i + 1]!, points[i + 2]!, points[i + 3]!];
        for (let s = 0; s <= 16; s++) {
          const t = s / 16;
          const u = 1 - t;
          out.push({ x: u * u * u * a.x + 3 * u * u * t * b.x + 3 * u * t * t * c.x + t * t * t * d.x, y: u * u * u * a.y + 3 * u * u * t * b.y + 3 * u * t * t * c.y + t * t * t * d.y });
        }
      }
      return out;
    };
    const sampled = r.edges.map((e) => ({ id: e.id, source: source.get(e.id), points: along(e.points) }));
    const dist = (p: Point, pts: readonly Point[]): number => Math.min(...pts.map((q) => Math.hypot(q.x - p.x, q.y - p.y)));
    const found: string[] = [];
    r.edges.forEach((e, k) => {
      if (e.label === null) return;
      const own = dist(e.label, sampled[k]!.points);
      const other = Math.min(...sampled.filter((s) => s.source !== sampled[k]!.source).map((s) => dist(e.label!, s.points)));
      if (other < LABEL_CLEARANCE * own) found.push(`${e.id} "${e.label.text}": ${own.toFixed(1)} from its edge, ${other.toFixed(1)} from another`);
    });
    return found;
  }

  it("sit by their own edge, not between two", () => {
    const index = readDocument(fixture("bert"));
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    const labelled = r.edges.filter((e) => e.label !== null).length;
    expect(labelled).toBeGreaterThan(100);
    // Where Graphviz put them, 19 of BERT's 112 labels were nearer another edge than 1.5 times their own.
    expect(confusedLabels(v, r).length).toBeLessThanOrEqual(labelled / 50);
  });
});

describe("stacks of open layers", () => {
  it("stay aligned, although each layer's exit is not above its entry", () => {
    // Llama-like: every layer reads cos and sin and the previous layer, and writes a cache; at
    // 30 layers the long edges are arcs, as in a real model opened fully.
    const index = readDocument(ropeStack(30, true));
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    checkGeometry(v, r);
    const layers = Array.from({ length: 30 }, (_, b) => r.rects[`m${b + 2}`]!);
    const centres = layers.map((m) => m.x + m.width / 2);
    // Lined up by their fields, every layer was shifted sideways from the one before it by the
    // same step (about 50 px here, 1,450 px over the stack). Now the layers are stacked: only the
    // first and last few, pulled towards the rotary module and the outputs, stand apart.
    const steps = centres.slice(1).map((c, i) => Math.abs(c - centres[i]!));
    expect(steps.filter((d) => d <= 1).length).toBeGreaterThanOrEqual(0.8 * steps.length);
  });

  it("routes the edge between two stacked layers within the gap between its two ends", () => {
    const index = readDocument(ropeStack(30, true));
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)));
    let checked = 0;
    for (let b = 0; b + 1 < 30; b++) {
      const [upper, lower] = [r.rects[`m${b + 2}`]!, r.rects[`m${b + 3}`]!];
      // The edge from this layer's op to the next layer's (the stack's own chain).
      for (const e of v.edges.filter((x) => index.nodes.get(x.source)?.module === `m${b + 2}` &&
        index.nodes.get(x.target)?.module === `m${b + 3}`)) {
        const route = r.edges.find((x) => x.id === e.id)!;
        const gap = route.points.filter((p) => p.y >= upper.y + upper.height - 1 && p.y <= lower.y + 1);
        const out = gap.find((p) => Math.abs(p.y - (upper.y + upper.height)) <= 1);
        const into = gap.find((p) => Math.abs(p.y - lower.y) <= 1);
        expect(out, `${e.id} leaves through the bottom border`).toBeDefined();
        expect(into, `${e.id} enters through the top border`).toBeDefined();
        if (out === undefined || into === undefined) continue;
        checked++;
        const [low, high] = [Math.min(out.x, into.x) - FIELD_WIDTH, Math.max(out.x, into.x) + FIELD_WIDTH];
        // With the edge unconstrained, Graphviz left its label node anywhere in the rank between,
        // and the edge swung out to it and back.
        for (const p of gap) expect(p.x >= low && p.x <= high, `${e.id} swings to x=${p.x.toFixed(0)}`).toBe(true);
      }
    }
    expect(checked).toBe(29);
  });

  it("joins two open elements by an aligning edge only where their fields would shift one sideways", () => {
    const graph = {
      elements: [
        { width: 200, height: 80, open: true },
        { width: 210, height: 80, open: true },
        { width: 600, height: 80, open: true },
        { width: 210, height: 80, open: true },
      ],
      inPorts: 0,
      outPorts: 0,
      edges: [
        { from: "e0", to: "e1", label: "", tailField: 3, headField: 9 }, // fields far apart
        { from: "e0", to: "e1", label: "", tailField: 5, headField: 2 }, // the same pair again
        { from: "e1", to: "e2", label: "", tailField: 3, headField: 20 }, // widths too different
        { from: "e1", to: "e3", label: "", tailField: 6, headField: 6 }, // one field above the other
      ],
    };
    const dot = toDot(graph);
    expect(dot.match(/comment=align/g)?.length).toBe(1);
    expect(dot).toContain("e0->e1[style=invis,weight=8,tailport=s,headport=n,comment=align];");
    // The edges themselves keep their fields and their say in the layout.
    expect(dot).toContain('e0->e1[comment=0,tailport="p3:s",headport="p9:n"];');
    expect(dot).not.toContain("constraint=false");
    // Graphviz's output for the aligning edge is not read back as one of the graph's edges.
    const g = parseGraphvizJson(render(dot));
    expect(g.edges.length).toBe(4);
    expect(g.edges.every((e) => e.points.length > 0)).toBe(true);
  });
});

describe("long edges drawn as arcs", () => {
  /** Layout of ropeStack(blocks) fully open, with the DOT text of every Graphviz run. */
  function ropeLayout(blocks: number, rotary = false): { v: VisibleGraph; r: LayoutResult; dots: string[] } {
    const dots: string[] = [];
    const counting = new LayoutEngine((dot) => {
      dots.push(dot);
      return render(dot);
    });
    const index = readDocument(ropeStack(blocks, rotary));
    const { v, r } = run(index, expandAll(index, stateAtDepth(index, 1, ALL)), counting);
    return { v, r, dots };
  }
  // The model's own edges (not the invisible ones that keep a stack of layers aligned).
  const edgeCount = (dot: string): number => (dot.match(/->[^\n]*comment=\d+/g) ?? []).length;
  const chain = (n: number, label = ""): LocalEdge[] => {
    // e0 feeds every element, each element feeds the next and leaves through its own port.
    const edges: LocalEdge[] = [];
    for (let i = 1; i < n; i++) {
      edges.push({ from: `e${i - 1}`, to: `e${i}`, label }, { from: "e0", to: `e${i}`, label }, { from: `e${i}`, to: `o${i}`, label: "" });
    }
    return edges;
  };

  it("leaves a cheap layout to Graphviz entirely", () => {
    expect(arcEdges(8, 0, 8, chain(8))).toEqual(new Set());
    const { v, r, dots } = ropeLayout(6);
    checkGeometry(v, r);
    // Every local edge of the model reached Graphviz: x in, 6 chain links, 6 rope reads, 6 cache
    // exits and the output (its largest DOT; the layers' own are smaller).
    const model = dots.reduce((a, b) => (edgeCount(b) > edgeCount(a) ? b : a));
    expect(edgeCount(model)).toBe(1 + 6 * 3 + 1);
  });

  it("takes only the edges longer than a few ranks out of a costly layout", () => {
    const edges = chain(60, '"2x4"');
    const arcs = arcEdges(60, 0, 60, edges);
    expect(arcs.size).toBeGreaterThan(0);
    for (const k of arcs) {
      const e = edges[k]!;
      // Fan-out from e0 far down, or a late exit; never a link of the chain itself.
      expect(e.from === "e0" || e.to.startsWith("o")).toBe(true);
      expect(e.to).not.toMatch(/^e[1-3]$/); // spans up to ARC_MIN_SPAN stay with Graphviz
    }
    // A cycle gives no ranks to estimate from: Graphviz gets everything.
    expect(arcEdges(2, 0, 0, [{ from: "e0", to: "e1", label: "" }, { from: "e1", to: "e0", label: "" }, ...chain(2)])).toEqual(new Set());
    expect(ARC_BUDGET).toBeGreaterThan(1000); // GPT-2's 24 open blocks (about 1,100) keep Graphviz's routes
  });

  it("draws a 60-layer fan-out and fan-in beside the layers, crossing no box", () => {
    const { v, r, dots } = ropeLayout(60);
    checkGeometry(v, r);
    const model = dots.reduce((a, b) => (edgeCount(b) > edgeCount(a) ? b : a));
    const modelRect = r.rects["m1"]!;
    const members = [...v.containers.get("m1")!.members].map((m) => r.rects[m]!);
    const right = Math.max(...members.map((m) => m.x + m.width));
    // Of the model's 181 local edges (60 chain links, 60 rope reads, 60 cache exits, the output)
    // Graphviz got the chain and the few short ones.
    expect(edgeCount(model)).toBeLessThan(80);
    const ropeEdges = v.edges.filter((e) => e.source === "n1");
    expect(ropeEdges.length).toBe(60);
    // Points along a route (each cubic sampled), to check what it passes through.
    const along = (points: readonly Point[]): Point[] => {
      const out: Point[] = [];
      for (let i = 0; i + 3 < points.length; i += 3) {
        const [a, b, c, d] = [points[i]!, points[i + 1]!, points[i + 2]!, points[i + 3]!];
        for (const t of [0, 0.25, 0.5, 0.75, 1]) {
          const u = 1 - t;
          out.push({
            x: u * u * u * a.x + 3 * u * u * t * b.x + 3 * u * t * t * c.x + t * t * t * d.x,
            y: u * u * u * a.y + 3 * u * u * t * b.y + 3 * u * t * t * c.y + t * t * t * d.y,
          });
        }
      }
      return out;
    };
    // The member of the model (m1) that holds `id`, walking up the open containers.
    const memberOf = (id: string): string => {
      const holder = [...v.containers.values()].find((c) => c.members.includes(id))!;
      return holder.id === "m1" ? id : memberOf(holder.id);
    };
    const rope = r.rects["n1"]!;
    let arcs = 0;
    for (const e of ropeEdges) {
      const route = r.edges.find((x) => x.id === e.id)!;
      const xs = route.points.map((p) => p.x);
      if (Math.max(...xs) <= right + ARC_GAP / 2) continue; // a short one, routed by Graphviz
      arcs++;
      // It leaves the rope op from its border (its right side: nothing is right of it in its
      // rank); the lane is inside the model's box.
      const first = route.points[0]!;
      expect(first.x).toBeCloseTo(rope.x + rope.width, 0);
      expect(first.y).toBeGreaterThan(rope.y);
      expect(first.y).toBeLessThan(rope.y + rope.height);
      expect(Math.max(...xs)).toBeLessThanOrEqual(modelRect.x + modelRect.width);
      // It crosses no layer but the one it enters.
      const entered = memberOf(e.target);
      for (const p of along(route.points)) {
        for (const m of v.containers.get("m1")!.members) {
          if (m === entered || m === "n1") continue;
          const box = r.rects[m]!;
          const strictlyInside = p.x > box.x + 1 && p.x < box.x + box.width - 1 && p.y > box.y + 1 && p.y < box.y + box.height - 1;
          expect(strictlyInside, `${e.id} passes through ${m}`).toBe(false);
        }
      }
    }
    expect(arcs).toBeGreaterThan(50);
  });

  it("starts an arc out of an open module straight below the module's own exit port", () => {
    // Llama's rotary embedding: cos and sin side by side in a module, read by all 60 layers.
    const { v, r } = ropeLayout(60, true);
    checkGeometry(v, r);
    const rotary = r.rects["m62"]!;
    const right = Math.max(...[...v.containers.get("m1")!.members].map((m) => r.rects[m]!.x + r.rects[m]!.width));
    let arcs = 0;
    for (const source of ["n1", "n99999"]) {
      const op = r.rects[source]!;
      const column = op.x + op.width / 2;
      // The two ops sit apart, so the module's centre is right below neither.
      expect(Math.abs(column - (rotary.x + rotary.width / 2))).toBeGreaterThan(FIELD_WIDTH);
      for (const e of v.edges.filter((x) => x.source === source)) {
        const route = r.edges.find((x) => x.id === e.id)!;
        if (Math.max(...route.points.map((p) => p.x)) <= right + ARC_GAP / 2) continue; // routed by Graphviz
        arcs++;
        const atBorder = route.points.find((p) => Math.abs(p.y - (rotary.y + rotary.height)) <= 1)!;
        expect(atBorder, `${e.id} meets the module's bottom border`).toBeDefined();
        expect(Math.abs(atBorder.x - column), `${e.id} leaves below ${source}`).toBeLessThanOrEqual(FIELD_WIDTH / 2 + 2);
      }
    }
    expect(arcs).toBeGreaterThan(100);
  });
});

describe("the header's controls", () => {
  it("are as wide as the view draws them, and the layout keeps edges clear of them", async () => {
    const { headerLook, foldButtonWidth } = await import("../src/view/looks");
    const index = readDocument(stackedBlocks(3));
    const open = expandAll(index, stateAtDepth(index, 1, ALL));
    const v = computeVisibleGraph(index, open);
    const measure = (text: string): number => text.length * 6;
    const plain = headerLook(v.containers.get("m0")!, measure).control;
    const inRun = headerLook(v.containers.get("m1")!, measure).control;
    expect(plain).toBe(CONTROL_ZONE);
    // A call of an unfolded run also shows its "×3" fold-back button left of the toggle.
    expect(inRun).toBe(CONTROL_ZONE + foldButtonWidth(3) + 4);
    // Given wider controls, the field an edge enters at moves left with them.
    expect(borderField(240, 230, true, inRun)).toBeLessThan(borderField(240, 230, true, plain));
  });
});

describe("the model's outputs", () => {
  it("sit on the bottom rank, not beside a tall module, which they would widen for its height", () => {
    const chain = (id: string, n: number): string[] => Array.from({ length: n }, (_, k) => `${id}${k}`);
    const enc = chain("a", 3);
    const dec = chain("b", 12);
    const items = ["x", "early", "late", ...enc, ...dec].map((id) => ({ id, width: 80, height: 30 }));
    const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target, label: "1x4" });
    const links = (ids: string[]) => ids.slice(1).map((id, k) => edge(ids[k] as string, id));
    const graph = {
      root: "r",
      items,
      containers: [
        { id: "r", parent: null, members: ["x", "enc", "early", "dec", "late"], header: 36, minWidth: 0, control: 0 },
        { id: "enc", parent: "r", members: enc, header: 36, minWidth: 0, control: 0 },
        { id: "dec", parent: "r", members: dec, header: 36, minWidth: 0, control: 0 },
      ],
      edges: [edge("x", "a0"), ...links(enc), edge("a2", "early"), edge("a2", "b0"), ...links(dec), edge("b11", "late")],
    };
    const r = new LayoutEngine(render).layout(graph);
    const early = r.rects.early as Rect;
    const decoder = r.rects.dec as Rect;
    expect(early.y).toBeGreaterThanOrEqual(decoder.y + decoder.height);
    expect(early.y).toBe((r.rects.late as Rect).y);
  });

  it("are the closed elements some edge reaches and none leaves, in a layout without exit ports", () => {
    const elements = [{ width: 1, height: 1 }, { width: 1, height: 1, open: true }, { width: 1, height: 1 }, { width: 1, height: 1 }];
    const edges = [{ from: "e0", to: "e1", label: "" }, { from: "e1", to: "e2", label: "" }, { from: "i0", to: "e0", label: "" }];
    expect(outcomes(elements, edges, 0)).toEqual([2]);
    expect(outcomes(elements, edges, 1)).toEqual([]);
    expect(toDot({ elements, inPorts: 0, outPorts: 0, edges, bottom: [2] })).toContain("{rank=sink;e2}");
  });

  it("leave out the dead end of a small part of its own, an input read only by a check", () => {
    // e0 -> open e1 -> e2, the model; e3 -> e4 -> e5, BERT's attention_mask, `to` and `all`.
    const closed = { width: 1, height: 1 };
    const elements = [closed, { width: 1, height: 1, open: true }, closed, closed, closed, closed];
    const edge = (from: string, to: string) => ({ from, to, label: "" });
    const edges = [edge("e0", "e1"), edge("e1", "e2"), edge("e3", "e4"), edge("e4", "e5")];
    expect(outcomes(elements, edges, 0)).toEqual([2]);
    // With nothing open the largest part is the model's: its dead ends are its outputs.
    const shut = elements.map(() => closed);
    expect(outcomes(shut, [edge("e0", "e1"), edge("e1", "e2"), edge("e1", "e3"), edge("e4", "e5")], 0)).toEqual([2, 3]);
  });

  it("put an input read only by a check beside the model's first input, not by its outputs", () => {
    const item = (id: string) => ({ id, width: 80, height: 30 });
    const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target, label: "1x4" });
    const body = Array.from({ length: 10 }, (_, k) => `b${k}`);
    const graph = {
      root: "r",
      items: ["ids", "mask", "to", "all", "out", ...body].map(item),
      containers: [
        { id: "r", parent: null, members: ["ids", "mask", "enc", "to", "all", "out"], header: 36, minWidth: 0, control: 0 },
        { id: "enc", parent: "r", members: body, header: 36, minWidth: 0, control: 0 },
      ],
      edges: [edge("ids", "b0"), ...body.slice(1).map((b, k) => edge(body[k] as string, b)), edge("b9", "out"),
        edge("mask", "to"), edge("to", "all")],
    };
    const r = new LayoutEngine(render).layout(graph);
    const [ids, mask, all, encoder] = [r.rects.ids as Rect, r.rects.mask as Rect, r.rects.all as Rect, r.rects.enc as Rect];
    // One row with the model's input, above the encoder: attention_mask → to → all.
    expect(mask.y).toBe(ids.y);
    expect(all.y).toBe(ids.y);
    expect(all.y + all.height).toBeLessThanOrEqual(encoder.y);
  });

  it("put only the leads of a larger part of their own on the top rank", () => {
    const closed = { width: 10, height: 10 };
    const edge = (from: string, to: string) => ({ from, to, label: "" });
    // e0 -> open e1 -> e2, the model; e3 -> e4 -> e5 -> e6 -> e7 a part of its own.
    const elements = [closed, { width: 10, height: 10, open: true }, ...Array.from({ length: 6 }, () => closed)];
    const edges = [edge("e0", "e1"), edge("e1", "e2"), edge("e3", "e4"), edge("e4", "e5"), edge("e5", "e6"), edge("e6", "e7")];
    const graph = { elements, inPorts: 0, outPorts: 0, edges, bottom: [2], leads: [0, 3] };
    expect(toDot(graph)).toContain("{rank=min;e3}");
    const short = { ...graph, edges: edges.slice(0, 4) };
    expect(toDot(short)).toContain("{rank=min;e3;e4;e5}");
  });
});

describe("the model's inputs and an encoder-decoder", () => {
  // An encoder and a wider decoder of two columns: the decoder's own input feeds the left one,
  // the encoder's output the right one, whose entry field lies right of the decoder's centre.
  const chain = (id: string, n: number): string[] => Array.from({ length: n }, (_, k) => `${id}${k}`);
  const edge = (source: string, target: string) => ({ id: `${source}-${target}`, source, target, label: "1x4" });
  const links = (ids: string[]) => ids.slice(1).map((id, k) => edge(ids[k] as string, id));
  const enc = chain("a", 12);
  const left = chain("b", 6);
  const right = chain("c", 6);
  const graph = {
    root: "r",
    items: ["x", "y", "out", "join", ...enc, ...left, ...right].map((id) => ({ id, width: 80, height: 30 })),
    containers: [
      { id: "r", parent: null, members: ["x", "y", "enc", "dec", "out"], header: 36, minWidth: 0, control: 0 },
      { id: "enc", parent: "r", members: enc, header: 36, minWidth: 0, control: 0 },
      { id: "dec", parent: "r", members: [...left, ...right, "join"], header: 36, minWidth: 0, control: 0 },
    ],
    edges: [edge("x", "a0"), ...links(enc), edge("y", "b0"), ...links(left), edge("a11", "c0"), ...links(right),
      edge("b5", "join"), edge("c5", "join"), edge("join", "out")],
  };

  it("an input sits right above the module it feeds, not beside the taller module over that one", () => {
    const r = new LayoutEngine(render).layout(graph);
    const [y, encoder, decoder] = [r.rects.y as Rect, r.rects.enc as Rect, r.rects.dec as Rect];
    // Beside the encoder, it and its edge pushed the encoder aside and left a column empty.
    expect(y.y).toBeGreaterThanOrEqual(encoder.y + encoder.height);
    expect(y.y + y.height).toBeLessThanOrEqual(decoder.y);
  });

  it("the encoder is centred on the decoder, though the edge between them then runs sideways", () => {
    const r = new LayoutEngine(render).layout(graph);
    const [encoder, decoder] = [r.rects.enc as Rect, r.rects.dec as Rect];
    expect(Math.abs(encoder.x + encoder.width / 2 - (decoder.x + decoder.width / 2))).toBeLessThan(1);
  });

  it("are the closed elements some edge leaves and none reaches, in a layout without entry ports", () => {
    const elements = [{ width: 1, height: 1 }, { width: 1, height: 1, open: true }, { width: 1, height: 1, open: true }, { width: 1, height: 1 }];
    const edges = [{ from: "e0", to: "e2", label: "" }, { from: "e1", to: "e2", label: "" }, { from: "e3", to: "e0", label: "" }];
    expect(leads(elements, edges, 0)).toEqual([3]);
    expect(leads(elements, edges, 1)).toEqual([]);
    // Only an open producer of what a lead feeds is two ranks above it.
    const withLead = toDot({ elements, inPorts: 0, outPorts: 0, edges: [...edges, { from: "e3", to: "e2", label: "" }], leads: [3] });
    expect(withLead).toContain("e1->e2[comment=1,tailport=s,headport=n,minlen=2]");
    expect(withLead).not.toMatch(/e0->e2\[[^\]]*minlen/);
  });

  it("centres only an open element that alone feeds an open element it alone is fed by", () => {
    const open = { width: 100, height: 100, open: true };
    const edges = [{ from: "e0", to: "e1", label: "" }, { from: "e1", to: "e2", label: "" }, { from: "e3", to: "e2", label: "" }];
    const dot = toDot({ elements: [open, { ...open, width: 300 }, open, open], inPorts: 0, outPorts: 0, edges, centred: true });
    expect(dot).toContain("e0->e1[style=invis");
    expect(dot).not.toContain("e1->e2[style=invis");
    expect(dot).not.toContain("e3->e2[style=invis");
    expect(toDot({ elements: [open, { ...open, width: 300 }, open, open], inPorts: 0, outPorts: 0, edges })).not.toContain("invis");
  });
});
