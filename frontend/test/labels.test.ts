import { describe, expect, it } from "vitest";
import { placeLabels } from "../src/layout/labels";
import type { Point } from "../src/layout/types";

/** A straight vertical route from (x, 0) to (x, 200) as a Bézier chain. */
function down(x: number): Point[] {
  return [{ x, y: 0 }, { x, y: 60 }, { x, y: 140 }, { x, y: 200 }];
}

describe("edge labels", () => {
  it("move to the free side of their own edge when another value's edge runs close", () => {
    const routes = [
      { points: down(100), label: { x: 110, y: 100 }, chars: 3, value: "a" },
      { points: down(122), label: null, chars: 0, value: "b" },
    ];
    const [moved] = placeLabels(routes, []);
    expect(moved?.x).toBeCloseTo(90);
    expect(moved?.y).toBe(100);
  });

  it("stay where a box covers the other side", () => {
    const routes = [
      { points: down(100), label: { x: 110, y: 100 }, chars: 3, value: "a" },
      { points: down(122), label: null, chars: 0, value: "b" },
    ];
    expect(placeLabels(routes, [{ x: 60, y: 80, width: 35, height: 40 }])[0]).toEqual({ x: 110, y: 100 });
  });

  it("cost nothing per point of a box's height (a module nested thousands deep is that tall)", () => {
    const routes = [
      { points: down(100), label: { x: 110, y: 100 }, chars: 3, value: "a" },
      { points: down(122), label: null, chars: 0, value: "b" },
    ];
    // A grid of the boxes would cover a billion points in cells of 128: millions of them.
    const tall = { x: 0, y: 300, width: 1e6, height: 1e9 };
    expect(placeLabels(routes, [tall])[0]?.x).toBeCloseTo(90);
  });
});
