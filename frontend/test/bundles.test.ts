import { beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_MIN } from "../src/layout/bundles";
import { LayoutEngine } from "../src/layout/engine";
import type { LayoutGraph, LayoutResult, Point, Rect } from "../src/layout/types";
import { graphvizRender } from "./helpers";

let render: (dot: string) => string;

beforeAll(async () => {
  render = await graphvizRender();
});

/** Lays `graph` out with a fresh engine, keeping every DOT text Graphviz was given. */
function layOut(graph: LayoutGraph): { result: LayoutResult; dots: string[] } {
  const dots: string[] = [];
  const engine = new LayoutEngine((dot) => {
    dots.push(dot);
    return render(dot);
  });
  return { result: engine.layout(graph), dots };
}

const header = { header: 40, minWidth: 120, control: 40 };
const ports = (dot: string, kind: "i" | "o"): number => (dot.match(new RegExp(`\\b${kind}\\d+\\[shape=point`, "g")) ?? []).length;
const near = (p: Point, r: Rect): boolean => p.x >= r.x - 2 && p.x <= r.x + r.width + 2 && p.y >= r.y - 2 && p.y <= r.y + r.height + 2;

/**
 * A model whose `n` ops each hand a value out of the model to an output of their own, in one
 * group of outputs beside it (a Llama's key/value cache).
 */
function cacheLike(n: number): LayoutGraph {
  const ops = Array.from({ length: n }, (_, k) => `a${k}`);
  const outs = Array.from({ length: n }, (_, k) => `out${k}`);
  return {
    root: "root",
    items: [...ops, ...outs].map((id) => ({ id, width: 80, height: 26 })),
    containers: [
      { id: "root", parent: null, members: ["model", "outs"], ...header },
      { id: "model", parent: "root", members: ops, ...header },
      { id: "outs", parent: "root", members: outs, ...header },
    ],
    edges: [
      ...ops.slice(1).map((a, k) => ({ id: `${ops[k]}>${a}`, source: ops[k] as string, target: a, label: "1×16" })),
      ...ops.map((a, k) => ({ id: `${a}>out${k}`, source: a, target: `out${k}`, label: "1×2×16" })),
    ],
  };
}

describe("bundles", () => {
  it("lay out the values a module hands to one group of outputs through one exit port and one edge", () => {
    const graph = cacheLike(40);
    const { result, dots } = layOut(graph);
    const model = dots.find((d) => d.includes("e39[") && ports(d, "o") > 0) as string;
    expect(model).toBeDefined();
    // Before bundles: 40 exit ports in the model, 40 entry ports in the group, 40 edges between them.
    expect(ports(model, "o")).toBe(1);
    const outs = dots.find((d) => d.includes("e39[") && ports(d, "i") > 0) as string;
    expect(ports(outs, "i")).toBe(1);
    const root = dots.find((d) => d.includes("e1[") && !d.includes("e2[")) as string;
    expect(root.match(/e0->e1\[comment=\d/g)?.length).toBe(1);
    // Every edge is still drawn, from its source to its target.
    for (const e of graph.edges) {
      const route = result.edges.find((r) => r.id === e.id);
      expect(route, e.id).toBeDefined();
      expect(near(route!.points[0]!, result.rects[e.source]!), `${e.id} starts at its source`).toBe(true);
      expect(near(route!.points.at(-1)!, result.rects[e.target]!), `${e.id} ends at its target`).toBe(true);
    }
    // The edges of the bundle share one label between the modules, not one each.
    expect(result.edges.filter((r) => r.label?.text === "1×2×16" && r.label.y > result.rects["model"]!.y + result.rects["model"]!.height).length).toBe(1);
  });

  it(`keep fewer than ${BUNDLE_MIN} values apart: an op reading two values from outside shows two edges`, () => {
    const graph = cacheLike(2);
    const { dots } = layOut(graph);
    const model = dots.find((d) => d.includes("e1[") && ports(d, "o") > 0) as string;
    expect(ports(model, "o")).toBe(2);
    const root = dots.find((d) => d.includes("e1[") && ports(d, "o") === 0 && ports(d, "i") === 0) as string;
    expect(root.match(/e0->e1\[comment=\d/g)?.length).toBe(2);
  });
});
