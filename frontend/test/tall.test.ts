import { beforeAll, describe, expect, it } from "vitest";
import { LayoutEngine } from "../src/layout/engine";
import type { GraphvizLayout } from "../src/layout/graphviz";
import { TALL_HEIGHT, shortened, stretched } from "../src/layout/tall";
import type { LayoutGraph, Rect } from "../src/layout/types";
import { graphvizRender } from "./helpers";

let render: (dot: string) => string;

beforeAll(async () => {
  render = await graphvizRender();
});

describe("tall elements laid out short", () => {
  const layout: GraphvizLayout = {
    width: 100,
    height: 72 + 20 + 72 + 10,
    nodes: new Map([
      ["i0", { x: 50, y: 0 }],
      ["e0", { x: 50, y: 36 + 5 }],
      ["e1", { x: 50, y: 5 + 72 + 20 + 36 }],
      ["o0", { x: 50, y: 174 }],
    ]),
    edges: [{ points: [{ x: 50, y: 5 + 72 }, { x: 50, y: 5 + 72 + 10 }, { x: 50, y: 5 + 72 + 20 }], label: { x: 60, y: 5 + 72 + 10 } }],
  };
  const elements = [
    { width: 80, height: 500, open: true },
    { width: 80, height: 300, open: true },
  ];

  it("stretches each rank back to its boxes' height and moves what lies below", () => {
    const short = shortened(elements)!;
    expect(short.map((e) => e.height)).toEqual([TALL_HEIGHT, TALL_HEIGHT]);
    const s = stretched(layout, elements, short)!;
    expect(s.nodes.get("i0")).toEqual({ x: 50, y: 0 });
    expect(s.nodes.get("e0")).toEqual({ x: 50, y: 5 + 250 });
    expect(s.nodes.get("e1")).toEqual({ x: 50, y: 5 + 500 + 20 + 150 });
    expect(s.nodes.get("o0")!.y).toBe(174 + (500 - 72) + (300 - 72));
    expect(s.height).toBe(layout.height + (500 - 72) + (300 - 72));
    // The edge between them runs from e0's real bottom to e1's real top; its label stays between.
    expect(s.edges[0]!.points.map((p) => p.y)).toEqual([5 + 500, 5 + 500 + 10, 5 + 500 + 20]);
    expect(s.edges[0]!.label).toEqual({ x: 60, y: 5 + 500 + 10 });
  });

  it("declines boxes of different real heights on one rank, and leaves short elements alone", () => {
    const side: GraphvizLayout = { ...layout, nodes: new Map([["e0", { x: 20, y: 41 }], ["e1", { x: 80, y: 41 }]]) };
    expect(stretched(side, elements, shortened(elements)!)).toBeNull();
    expect(shortened([{ width: 10, height: TALL_HEIGHT }])).toBeNull();
  });

  it("lay out a 450-op chain's segments short, every op still in order and inside its module", () => {
    const ops = Array.from({ length: 450 }, (_, k) => `a${k}`);
    const graph: LayoutGraph = {
      root: "root",
      items: [{ id: "x", width: 60, height: 26 }, ...ops.map((id) => ({ id, width: 60, height: 26 }))],
      containers: [
        { id: "root", parent: null, members: ["x", "body"], header: 40, minWidth: 120, control: 40 },
        { id: "body", parent: "root", members: ops, header: 40, minWidth: 120, control: 40 },
      ],
      edges: [
        { id: "x>a0", source: "x", target: "a0", label: "2×4" },
        ...ops.slice(1).map((a, k) => ({ id: `a${k}>${a}`, source: ops[k] as string, target: a, label: "2×4" })),
        // Every 50th op also reads the input, as every layer of a Llama reads the rotary embedding.
        ...ops.filter((_, k) => k > 0 && k % 50 === 0).map((a) => ({ id: `x>${a}`, source: "x", target: a, label: "" })),
      ],
    };
    const dots: string[] = [];
    const r = new LayoutEngine((dot) => {
      dots.push(dot);
      return render(dot);
    }).layout(graph);
    // The body's own layout stacks its 5 segments: Graphviz saw them at most TALL_HEIGHT high.
    const body = dots.find((d) => d.includes("e4[shape=record") && !d.includes("e5["))!;
    expect(body).toBeDefined();
    const heights = [...body.matchAll(/height=([\d.]+)/g)].map((m) => Number(m[1]) * 72);
    expect(Math.max(...heights)).toBeLessThanOrEqual(TALL_HEIGHT);
    const box = r.rects["body"]!;
    const inside = (a: Rect): boolean => a.x >= box.x - 0.5 && a.y >= box.y - 0.5 && a.x + a.width <= box.x + box.width + 0.5 && a.y + a.height <= box.y + box.height + 0.5;
    for (const [k, a] of ops.entries()) {
      const rect = r.rects[a]!;
      expect(inside(rect), `${a} inside the body`).toBe(true);
      if (k > 0) expect(rect.y, `${a} below ${ops[k - 1]}`).toBeGreaterThanOrEqual(r.rects[ops[k - 1]!]!.y + 26);
    }
    for (const e of graph.edges) {
      const route = r.edges.find((x) => x.id === e.id)!;
      const end = route.points.at(-1)!;
      const t = r.rects[e.target]!;
      expect(Math.abs(end.y - t.y), `${e.id} ends on its target's top`).toBeLessThanOrEqual(2);
      expect(end.x >= t.x - 2 && end.x <= t.x + t.width + 2, `${e.id} ends over its target`).toBe(true);
    }
  });
});
