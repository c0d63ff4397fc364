import { describe, expect, it } from "vitest";
import { GridIndex } from "../src/view/spatial";
import type { Rect } from "../src/layout/types";

/** A small deterministic generator, so a failure names the same rectangles every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const meets = (a: Rect, b: Rect): boolean =>
  a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height;

describe("GridIndex", () => {
  it("answers every window as a pass over all rectangles would", () => {
    const next = random(7);
    // A tall graph (a deep stack) with small boxes, a few frames spanning much of it, and holes.
    const rects: (Rect | undefined)[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 97 === 0) rects.push(undefined);
      else if (i % 250 === 0) rects.push({ x: 0, y: next() * 1000, width: 800, height: 20000 + next() * 50000 });
      else rects.push({ x: next() * 800, y: next() * 100000, width: 20 + next() * 120, height: 10 + next() * 40 });
    }
    const grid = new GridIndex(rects);
    for (let q = 0; q < 200; q++) {
      const w = next() < 0.1 ? 1e6 : 50 + next() * 2000;
      const window = { x: next() * 1200 - 200, y: next() * 110000 - 5000, width: w, height: w * (0.5 + next()) };
      const expected = rects.flatMap((r, i) => (r !== undefined && meets(r, window) ? [i] : []));
      expect(grid.query(window)).toEqual(expected);
    }
  });

  it("finds nothing in a window off the graph, and copes with no rectangles", () => {
    const grid = new GridIndex([{ x: 0, y: 0, width: 10, height: 10 }]);
    expect(grid.query({ x: -1e12, y: -1e12, width: 0, height: 0 })).toEqual([]);
    expect(grid.query({ x: 5, y: 5, width: 1, height: 1 })).toEqual([0]);
    expect(new GridIndex([]).query({ x: 0, y: 0, width: 100, height: 100 })).toEqual([]);
  });
});
