import { describe, expect, it } from "vitest";
import { clampFrame, countInView, focusFrame, lookingAt, topFrame } from "../src/view/frame";

const view = { width: 1000, height: 600 };
const box = (x: number, y: number, width = 60, height = 26) => ({ x, y, width, height });

describe("topFrame", () => {
  it("puts the first input of a wide graph in view, not the empty middle between two inputs", () => {
    const graph = { width: 5000, height: 4000 };
    const leaves = [box(400, 40), box(4400, 40), box(400, 200), box(4400, 300)];
    const f = topFrame(leaves, leaves[0] ?? null, graph, view, 0.8);
    expect(countInView(leaves, f, view)).toBeGreaterThanOrEqual(2);
    expect(f.y).toBeGreaterThan(0); // the graph's top edge is in view
  });

  it("does not cut the leftmost drawn item of the top when the view holds it", () => {
    const graph = { width: 3000, height: 3000 };
    const leaves = [box(1500, 30), box(1000, 120, 700), box(1500, 300)];
    const f = topFrame(leaves, leaves[0] ?? null, graph, view, 1);
    expect(f.x + 1000 * f.k).toBeGreaterThanOrEqual(0);
  });

  it("shows the titles of the open modules it cuts at the left edge, as many as keep the anchor in view", () => {
    const graph = { width: 3000, height: 3000 };
    const input = box(1500, 30);
    const leaves = [input, box(1500, 300)];
    const root = { x: 0, y: 0, width: 3000, height: 3000 };
    const encoder = { x: 1000, y: 100, width: 900, height: 2000 };
    const block = { x: 1020, y: 400, width: 800, height: 1000 };
    const f = topFrame(leaves, input, graph, view, 1, [root, encoder, block]);
    const x = (r: { x: number }) => f.x + f.k * r.x;
    expect(x(encoder)).toBeGreaterThanOrEqual(0); // its title is in view, and so the block's
    expect(x(block)).toBeGreaterThanOrEqual(0);
    expect(x(root)).toBeLessThan(0); // showing the root's would push the input out
    expect(x(input) + input.width * f.k).toBeLessThanOrEqual(view.width);
    // Without the modules the view centres on what is drawn there and cuts the encoder's title.
    const plain = topFrame(leaves, input, graph, view, 1);
    expect(plain.x + 1000).toBeLessThan(0);
  });

  it("centres a graph narrower than the view", () => {
    const f = topFrame([box(0, 0)], null, { width: 400, height: 5000 }, view, 1);
    expect(f.x).toBeCloseTo(300);
  });
});

describe("focusFrame", () => {
  it("centres a small box", () => {
    const f = focusFrame(box(2000, 2000), view, 1);
    expect(f.x + 2030).toBeCloseTo(500);
    expect(f.y + 2013).toBeCloseTo(300);
  });

  it("shows the header of a box taller than the view", () => {
    const f = focusFrame({ x: 100, y: 1000, width: 400, height: 5000 }, view, 1);
    expect(f.y + 1000).toBeGreaterThan(0);
    expect(f.y + 1000).toBeLessThan(60);
    expect(f.x + 300).toBeCloseTo(500); // centred sideways: it is narrower than the view
  });

  it("moves to the drawn items of a wide box whose left part is empty", () => {
    const rect = { x: 0, y: 0, width: 5000, height: 5000 };
    const leaves = [box(4000, 100)];
    const f = focusFrame(rect, view, 1, leaves);
    expect(countInView(leaves, f, view)).toBe(1);
  });
});

describe("lookingAt and clampFrame", () => {
  it("is null when the whole graph is on screen, else the item nearest the centre", () => {
    const items = [{ id: "a", rect: box(10, 10) }, { id: "b", rect: box(480, 280) }];
    expect(lookingAt(items, { x: 0, y: 0, k: 1 }, view)).toBeNull();
    const far = [...items, { id: "c", rect: box(5000, 5000) }];
    expect(lookingAt(far, { x: 0, y: 0, k: 1 }, view)?.id).toBe("b");
  });

  it("centres a graph smaller than the view and keeps a bigger one's edges out of it", () => {
    const small = clampFrame({ x: 900, y: 500, k: 1 }, { width: 200, height: 100 }, view);
    expect(small).toEqual({ x: 400, y: 250, k: 1 });
    const big = clampFrame({ x: 300, y: -9000, k: 1 }, { width: 3000, height: 3000 }, view);
    expect(big.x).toBeLessThanOrEqual(30);
    expect(big.y + 3000).toBeGreaterThanOrEqual(600 - 30);
  });
});
