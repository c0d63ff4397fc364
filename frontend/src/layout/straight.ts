/**
 * Labelled edges drawn straight. Graphviz gives an edge label a node of its own on the rank
 * between the edge's ends, with the edge on its left side: where the label has no room right
 * of the straight line, the edge swings out sideways and back around it although its two ends
 * are nearly above one another. Such an edge is drawn as the straight line between its ends,
 * its label beside that line (right, else left), where neither the line nor the label meets
 * another element's box.
 */
import type { LocalEdge, LocalElement } from "./dot";
import type { GraphvizLayout } from "./graphviz";
import { labelWidth, LABEL_HEIGHT } from "./labels";
import type { Point, Rect } from "./types";

/** Ends at most this far apart sideways count as above one another. */
export const STRAIGHT_REACH = 24;
/** How far a straightened edge and its label keep from other elements' boxes. */
const CLEARANCE = 6;
/** Gap between a straightened edge and its label's left side. */
const LABEL_GAP = 3;

/** `local` with each labelled edge that swings around its label drawn straight (see above). */
export function straighten(local: GraphvizLayout, elements: readonly LocalElement[], edges: readonly LocalEdge[]): GraphvizLayout {
  const boxes: { readonly name: string; readonly box: Rect }[] = [];
  elements.forEach((el, i) => {
    const c = local.nodes.get(`e${i}`);
    if (c !== undefined) boxes.push({ name: `e${i}`, box: { x: c.x - el.width / 2, y: c.y - el.height / 2, width: el.width, height: el.height } });
  });
  let changed = false;
  const out = local.edges.map((e, k) => {
    const spec = edges[k];
    if (e === undefined || spec === undefined || spec.label === "" || e.label === null || e.points.length < 4) return e;
    const a = e.points[0] as Point;
    const b = e.points[e.points.length - 1] as Point;
    if (Math.abs(b.x - a.x) >= STRAIGHT_REACH || b.y - a.y <= 0 || !swings(e.points, a, b)) return e;
    const xAt = (y: number): number => a.x + ((b.x - a.x) * (y - a.y)) / (b.y - a.y);
    const w = labelWidth(spec);
    const y = Math.min(Math.max(e.label.y, a.y + LABEL_HEIGHT / 2), b.y - LABEL_HEIGHT / 2);
    const [top, bottom] = [xAt(y - LABEL_HEIGHT / 2), xAt(y + LABEL_HEIGHT / 2)];
    // Right of the line as Graphviz has it, else left of it.
    const sides = [Math.max(top, bottom) + LABEL_GAP + w / 2, Math.min(top, bottom) - LABEL_GAP - w / 2];
    const clear = (x: number): boolean => {
      const labelBox = { x: x - w / 2, y: y - LABEL_HEIGHT / 2, width: w, height: LABEL_HEIGHT };
      return boxes.every(({ name, box }) => name === spec.from || name === spec.to || !meets(labelBox, box, CLEARANCE));
    };
    const x = sides.find(clear);
    if (x === undefined || boxes.some(({ name, box }) => name !== spec.from && name !== spec.to && lineMeets(a, b, box, CLEARANCE))) return e;
    const label = { x, y };
    changed = true;
    const third = { x: (b.x - a.x) / 3, y: (b.y - a.y) / 3 };
    return { points: [a, { x: a.x + third.x, y: a.y + third.y }, { x: b.x - third.x, y: b.y - third.y }, b], label };
  });
  return changed ? { ...local, edges: out } : local;
}

/** Whether a Bézier chain from `a` to `b` goes more than a few points further sideways than either end. */
function swings(points: readonly Point[], a: Point, b: Point): boolean {
  const [lo, hi] = [Math.min(a.x, b.x) - 2, Math.max(a.x, b.x) + 2];
  return points.some((p) => p.x < lo || p.x > hi);
}

function meets(r: Rect, box: Rect, margin: number): boolean {
  return r.x < box.x + box.width + margin && box.x - margin < r.x + r.width && r.y < box.y + box.height + margin && box.y - margin < r.y + r.height;
}

/** Whether the line from `a` to `b` (going down) passes within `margin` of `box`. */
function lineMeets(a: Point, b: Point, box: Rect, margin: number): boolean {
  const top = Math.max(a.y, box.y - margin);
  const bottom = Math.min(b.y, box.y + box.height + margin);
  if (top > bottom) return false;
  const xAt = (y: number): number => a.x + ((b.x - a.x) * (y - a.y)) / (b.y - a.y);
  const [x0, x1] = [xAt(top), xAt(bottom)];
  return Math.max(x0, x1) > box.x - margin && Math.min(x0, x1) < box.x + box.width + margin;
}
