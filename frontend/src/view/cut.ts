/**
 * Long edges drawn only where they meet the window. A route that runs the length of a fully
 * open 700-layer model (a lane that every layer's rotary embedding comes down) is thousands of
 * curves; the browser rasterizes all of a path's curves for every tile it paints, so a window
 * crossed by a thousand such lanes spent most of each frame on curves far outside the view.
 * A windowed draw gives such a route only its curves that meet the window grown by CUT_MARGIN,
 * and a long curve only its part near it (the browser strokes a curve along its whole length,
 * so one lane's single straight curve still cost as much as its length); exports draw without a
 * window, so they keep every route whole.
 */
import type { Point, Rect } from "../layout/types";
import { intersects } from "./virtual";

/** How far (in window sizes) a cut reaches past the window on every side, so that small moves keep it. */
export const CUT_MARGIN = 0.5;
/** A route is cut when its bounds are more than this many times the cut's width or height. */
const CUT_ABOVE = 2;

/** The part of a route that a windowed draw keeps: its path data and whether it keeps the route's end. */
export interface Cut {
  readonly d: string;
  /** Whether the route's last curve is in `d`, where the arrowhead goes. */
  readonly end: boolean;
}

/** A point as path data writes it (one decimal), for whole and cut paths alike. */
export function pointText(p: Point): string {
  return `${p.x.toFixed(1)},${p.y.toFixed(1)}`;
}

/** `window` grown by CUT_MARGIN window sizes on every side. */
export function cutRect(window: Rect): Rect {
  const dx = CUT_MARGIN * window.width;
  const dy = CUT_MARGIN * window.height;
  return { x: window.x - dx, y: window.y - dy, width: window.width + 2 * dx, height: window.height + 2 * dy };
}

/** Whether a route of these bounds is worth cutting to `rect`: far larger than it, one way or the other. */
export function needsCut(bounds: Rect, rect: Rect): boolean {
  return bounds.width > CUT_ABOVE * rect.width || bounds.height > CUT_ABOVE * rect.height;
}

/** The distance of `p` from the line through `a` and `b`. */
function offLine(p: Point, a: Point, b: Point): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy);
  return length === 0 ? Math.hypot(p.x - a.x, p.y - a.y) : Math.abs((p.x - a.x) * dy - (p.y - a.y) * dx) / length;
}

/** The part [t0, t1] of the segment from `a` to `b` inside `rect` (Liang-Barsky), or null for none. */
function clipped(a: Point, b: Point, rect: Rect): [number, number] | null {
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  for (const [q, r] of [[-dx, a.x - rect.x], [dx, rect.x + rect.width - a.x], [-dy, a.y - rect.y], [dy, rect.y + rect.height - a.y]] as const) {
    if (q === 0) {
      if (r < 0) return null;
      continue;
    }
    const t = r / q;
    if (q < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return null;
  }
  return [t0, t1];
}

/** How many times a long bent curve is halved at most, looking for its parts near the rectangle. */
const MAX_HALVINGS = 16;

/** A cubic curve's control points. */
type Cubic = readonly [Point, Point, Point, Point];

const mid = (p: Point, q: Point): Point => ({ x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 });

/** The bounds of `points[from..to]` (a piece's control points). */
function boundsOf(points: readonly Point[], from: number, to: number): Rect {
  let lx = Infinity;
  let ly = Infinity;
  let hx = -Infinity;
  let hy = -Infinity;
  for (let k = from; k <= to; k++) {
    const p = points[k] as Point;
    lx = Math.min(lx, p.x);
    hx = Math.max(hx, p.x);
    ly = Math.min(ly, p.y);
    hy = Math.max(hy, p.y);
  }
  return { x: lx, y: ly, width: hx - lx, height: hy - ly };
}

/**
 * The parts of curve `c` near `rect`, in order, each with its span [t0, t1] of `c`: `c` halved
 * (de Casteljau) until each part either misses `rect` (dropped) or is small (kept).
 */
function nearParts(c: Cubic, rect: Rect): { cubic: Cubic; t0: number; t1: number }[] {
  const out: { cubic: Cubic; t0: number; t1: number }[] = [];
  const pending: { cubic: Cubic; t0: number; t1: number; depth: number }[] = [{ cubic: c, t0: 0, t1: 1, depth: 0 }];
  while (pending.length > 0) {
    const part = pending.pop() as (typeof pending)[number];
    const bounds = boundsOf(part.cubic, 0, 3);
    if (!intersects(bounds, rect)) continue;
    if ((bounds.width <= 2 * rect.width && bounds.height <= 2 * rect.height) || part.depth >= MAX_HALVINGS) {
      out.push(part);
      continue;
    }
    const [a, b, cc, d] = part.cubic;
    const ab = mid(a, b);
    const bc = mid(b, cc);
    const cd = mid(cc, d);
    const abc = mid(ab, bc);
    const bcd = mid(bc, cd);
    const m = mid(abc, bcd);
    const tm = (part.t0 + part.t1) / 2;
    // The second half first, so that the first is taken next: the parts come out in order.
    pending.push({ cubic: [m, bcd, cd, d], t0: tm, t1: part.t1, depth: part.depth + 1 });
    pending.push({ cubic: [a, ab, abc, m], t0: part.t0, t1: tm, depth: part.depth + 1 });
  }
  return out;
}

/**
 * The path data of the pieces of `points` (a cubic Bézier chain, or a polyline when it is not
 * one) whose control points' bounds meet `rect`, a straight piece only inside `rect`; each run of
 * consecutive pieces is one subpath.
 */
export function cutPath(points: readonly Point[], rect: Rect): Cut {
  const f = pointText;
  const step = (points.length - 1) % 3 === 0 ? 3 : 1;
  let d = "";
  let open = false;
  let end = false;
  for (let i = 0; i + step < points.length; i += step) {
    if (!intersects(boundsOf(points, i, i + step), rect)) {
      open = false;
      continue;
    }
    const a = points[i] as Point;
    const b = points[i + step] as Point;
    const last = i + step === points.length - 1;
    const straight = step === 1 || (offLine(points[i + 1] as Point, a, b) < 0.5 && offLine(points[i + 2] as Point, a, b) < 0.5);
    const part = straight ? clipped(a, b, rect) : null;
    if (straight && part === null) {
      open = false;
      continue;
    }
    if (part !== null && (part[0] > 0 || part[1] < 1)) {
      const at = (t: number): Point => ({ x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y) });
      if (!open || part[0] > 0) d += `M${f(at(part[0]))}`;
      d += `L${f(at(part[1]))}`;
      open = part[1] === 1;
      end = last && part[1] === 1;
      continue;
    }
    if (step === 3) {
      const parts = nearParts([a, points[i + 1] as Point, points[i + 2] as Point, b], rect);
      // How far along this curve the path has reached (-1: not joined to it).
      let reached: number = open ? 0 : -1;
      for (const q of parts) {
        if (q.t0 !== reached) d += `M${f(q.cubic[0])}`;
        d += `C${f(q.cubic[1])} ${f(q.cubic[2])} ${f(q.cubic[3])}`;
        reached = q.t1;
      }
      open = reached === 1;
      end = last && reached === 1;
      continue;
    }
    if (!open) d += `M${f(a)}`;
    d += `L${f(b)}`;
    open = true;
    end = last;
  }
  return { d, end };
}
