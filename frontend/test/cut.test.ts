import { describe, expect, it } from "vitest";
import { cutPath, cutRect, needsCut } from "../src/view/cut";
import { contains } from "../src/view/virtual";
import { pathData } from "../src/view/render";
import type { Point } from "../src/layout/types";

/** A vertical Bézier chain of `n` curves, each 100 tall, down x = 10. */
function lane(n: number): Point[] {
  const points: Point[] = [{ x: 10, y: 0 }];
  for (let i = 0; i < n; i++) points.push({ x: 10, y: 100 * i + 33 }, { x: 10, y: 100 * i + 66 }, { x: 10, y: 100 * (i + 1) });
  return points;
}

describe("long edges cut to the window", () => {
  it("keeps only the curves that meet the rectangle, a straight one only inside it", () => {
    const cut = cutPath(lane(100), { x: 0, y: 4_950, width: 50, height: 200 });
    // Curves 49 (4,900-5,000), 50 and 51 meet it; the first and last are cut at its border.
    expect(cut.d).toBe("M10.0,4950.0L10.0,5000.0C10.0,5033.0 10.0,5066.0 10.0,5100.0L10.0,5150.0");
    expect(cut.end).toBe(false);
  });

  it("keeps a bent curve about the rectangle's size whole, and of a long one only the parts near it", () => {
    const bent = [{ x: 0, y: 0 }, { x: 400, y: 300 }, { x: -400, y: 600 }, { x: 0, y: 900 }];
    expect(cutPath(bent, { x: -500, y: -100, width: 1_000, height: 600 }).d).toBe(pathData(bent));
    const rect = { x: -20, y: 400, width: 40, height: 40 };
    const near = cutPath(bent, rect);
    const numbers = (near.d.match(/-?\d+\.\d/g) ?? []).map(Number);
    const xs = numbers.filter((_, i) => i % 2 === 0);
    const ys = numbers.filter((_, i) => i % 2 === 1);
    // The curve crosses x = 0 at y = 450: only parts within twice the rectangle's size of it are drawn.
    expect(near.d.startsWith("M")).toBe(true);
    expect(Math.min(...ys)).toBeGreaterThan(rect.y - 2 * rect.height);
    expect(Math.max(...ys)).toBeLessThan(rect.y + 3 * rect.height);
    expect(Math.max(...xs.map(Math.abs))).toBeLessThan(3 * rect.width);
    expect(near.end).toBe(false);
  });

  it("keeps the arrowhead's end only when the last curve is kept", () => {
    expect(cutPath(lane(100), { x: 0, y: 9_950, width: 50, height: 100 }).end).toBe(true);
    expect(cutPath(lane(100), { x: 200, y: 0, width: 50, height: 10_000 }).d).toBe("");
  });

  it("draws a route that meets the rectangle everywhere exactly as a whole path", () => {
    const points = lane(5);
    expect(cutPath(points, { x: 0, y: -10, width: 50, height: 600 }).d).toBe(pathData(points));
    const line = [{ x: 0, y: 0 }, { x: 0, y: 100 }, { x: 50, y: 100 }, { x: 50, y: 400 }];
    expect(cutPath(line, { x: -5, y: -5, width: 100, height: 500 }).d).toBe(pathData(line));
  });

  it("splits a route that leaves the rectangle and comes back into two subpaths", () => {
    const points: Point[] = [{ x: 0, y: 0 }];
    for (const x of [0, 1_000, 1_000, 0]) points.push({ x, y: 0 }, { x, y: 0 }, { x, y: 0 });
    expect(cutPath(points, { x: -10, y: -10, width: 20, height: 20 }).d.match(/M/g)?.length).toBe(2);
  });

  it("cuts only routes far larger than the grown window, and keeps a cut while the window stays inside it", () => {
    const window = { x: 0, y: 0, width: 100, height: 100 };
    const grown = cutRect(window);
    expect(grown).toEqual({ x: -50, y: -50, width: 200, height: 200 });
    expect(needsCut({ x: 0, y: 0, width: 10, height: 10_000 }, grown)).toBe(true);
    expect(needsCut({ x: 0, y: 0, width: 300, height: 300 }, grown)).toBe(false);
    expect(contains(grown, { ...window, x: 40 })).toBe(true);
    expect(contains(grown, { ...window, x: 60 })).toBe(false);
  });
});
