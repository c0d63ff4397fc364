import { describe, expect, it } from "vitest";
import type { GraphvizLayout } from "../src/layout/graphviz";
import { straighten } from "../src/layout/straight";
import type { Point } from "../src/layout/types";

/** Two 40×20 boxes, e0 at (100, 10) and e1 at (104, 190), and an edge e0 -> e1 swinging 30 to the left around its label. */
function swinging(...others: Point[]): GraphvizLayout {
  const nodes = new Map<string, Point>([["e0", { x: 100, y: 10 }], ["e1", { x: 104, y: 190 }]]);
  others.forEach((at, i) => nodes.set(`e${i + 2}`, at));
  const points = [{ x: 100, y: 20 }, { x: 70, y: 60 }, { x: 70, y: 140 }, { x: 104, y: 180 }];
  return { width: 200, height: 200, nodes, edges: [{ points, label: { x: 85, y: 100 } }] };
}

const elements = [{ width: 40, height: 20 }, { width: 40, height: 20 }, { width: 40, height: 20 }, { width: 40, height: 20 }];
const edges = [{ from: "e0", to: "e1", label: '"1x8"' }];

describe("labelled edges between ends above one another", () => {
  it("are drawn straight, their label right beside the line", () => {
    const [e] = straighten(swinging(), elements.slice(0, 2), edges).edges;
    expect(e?.points[0]).toEqual({ x: 100, y: 20 });
    expect(e?.points[3]).toEqual({ x: 104, y: 180 });
    for (const p of e?.points ?? []) expect(p.x).toBeGreaterThanOrEqual(100);
    for (const p of e?.points ?? []) expect(p.x).toBeLessThanOrEqual(104);
    expect(e?.label?.y).toBe(100);
    // 3 right of the line at the label's lower side (x 102.14), plus half its width (3 characters of 5.4).
    expect(e?.label?.x).toBeCloseTo(113.24, 1);
  });

  it("keep Graphviz's route where the straight line would meet another box", () => {
    const local = swinging({ x: 100, y: 100 });
    expect(straighten(local, elements.slice(0, 3), edges)).toBe(local);
  });

  it("put the label left of the line where a box covers its right side", () => {
    const [e] = straighten(swinging({ x: 135, y: 100 }), elements.slice(0, 3), edges).edges;
    expect(e?.points[1]?.x).toBeCloseTo(101.33, 1);
    // 3 left of the line at the label's upper side (x 101.86), less half its width.
    expect(e?.label?.x).toBeCloseTo(90.76, 1);
  });

  it("keep Graphviz's route where a box covers the label's place on either side", () => {
    const local = swinging({ x: 135, y: 100 }, { x: 65, y: 100 });
    expect(straighten(local, elements, edges)).toBe(local);
  });

  it("leave unlabelled edges and ends far apart sideways alone", () => {
    const local = swinging();
    expect(straighten(local, elements.slice(0, 2), [{ ...edges[0], label: "" } as (typeof edges)[0]])).toBe(local);
    const far = { ...local, nodes: new Map(local.nodes).set("e1", { x: 140, y: 190 }) };
    far.edges[0]?.points.splice(3, 1, { x: 140, y: 180 });
    expect(straighten(far, elements.slice(0, 2), edges)).toBe(far);
  });
});
