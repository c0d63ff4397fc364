/**
 * Where the view goes after the graph changed: pure functions from drawn rectangles (graph
 * coordinates) and the view's size to a zoom transform, so that a view the viewer chooses
 * itself always holds drawn nodes and never starts in the empty part of a wide graph.
 */
import type { Rect } from "../layout/types";
import { HEADER_HEIGHT } from "./looks";

/** A zoom transform: screen = k * graph + (x, y). */
export interface Frame {
  readonly x: number;
  readonly y: number;
  readonly k: number;
}

export interface Size {
  readonly width: number;
  readonly height: number;
}

/** Share of the view kept free around what a frame shows. */
const MARGIN = 0.03;

/** How many of `rects` lie (at least partly) on screen under `frame`. */
export function countInView(rects: readonly Rect[], frame: Frame, view: Size): number {
  let n = 0;
  for (const r of rects) {
    const left = frame.x + frame.k * r.x;
    const top = frame.y + frame.k * r.y;
    const right = left + frame.k * r.width;
    const bottom = top + frame.k * r.height;
    if (right > 0 && left < view.width && bottom > 0 && top < view.height) n++;
  }
  return n;
}

/** The topmost rectangle (the leftmost of those at the same height). */
export function topmost(rects: readonly Rect[]): Rect | null {
  let best: Rect | null = null;
  for (const r of rects) {
    if (best === null || r.y < best.y - 0.5 || (Math.abs(r.y - best.y) <= 0.5 && r.x < best.x)) best = r;
  }
  return best;
}

/**
 * The top of the graph at zoom `k`: `anchor` (where the graph starts, e.g. its first input;
 * else its topmost drawn item) in the upper part of the view, the graph's top edge with it when
 * that fits, and sideways as much of the drawn items around it as the view holds, so that none
 * of them is cut at the left edge while another would fit; then right far enough to show the
 * titles of the open modules (`modules`) whose headers it cuts at the left edge, as many as keep
 * the anchor in view.
 */
export function topFrame(leaves: readonly Rect[], anchor: Rect | null, graph: Size, view: Size, k: number,
  modules: readonly Rect[] = []): Frame {
  const vw = view.width / k;
  const vh = view.height / k;
  const m = (MARGIN * Math.min(view.width, view.height)) / k;
  const a = anchor ?? topmost(leaves);
  if (a === null) return { x: (view.width - k * graph.width) / 2, y: MARGIN * view.height, k };
  // The graph's own top (its headers) stays in view unless that pushes the anchor too far down.
  const top = a.y + a.height + m <= 0.6 * vh ? -m : a.y - 2 * m;
  let left: number;
  if (graph.width <= vw - 2 * m) {
    left = (graph.width - vw) / 2;
  } else {
    left = a.x + a.width / 2 - vw / 2;
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of leaves) {
      if (r.x + r.width < left || r.x > left + vw || r.y + r.height < top || r.y > top + vh) continue;
      lo = Math.min(lo, r.x);
      hi = Math.max(hi, r.x + r.width);
    }
    if (lo <= hi) {
      if (hi - lo <= vw - 2 * m) left = (lo + hi) / 2 - vw / 2;
      else if (lo < left + m) left = Math.max(lo - m, a.x + a.width + m - vw);
    }
    // A title says which module the view is in: cut, T5's encoder read "ck · 28.1K params".
    let shown = left;
    for (const r of modules) {
      const cut = r.x < left + m && r.x + r.width > left + m && r.y >= top && r.y + HEADER_HEIGHT <= top + vh;
      if (cut && r.x - m < shown && a.x + a.width + m <= r.x - m + vw) shown = r.x - m;
    }
    left = Math.max(-m, Math.min(graph.width + m - vw, shown));
  }
  return { x: -k * left, y: -k * top, k };
}

/**
 * `rect` (a node or a module box) at zoom `k`: centred when it fits the view; a big module with
 * its header and top in view, from its left edge (its title), or from the first drawn items
 * of its top (`leaves`) when its left part is empty there. Centred sideways when its width fits.
 */
export function focusFrame(rect: Rect, view: Size, k: number, leaves: readonly Rect[] = []): Frame {
  const vw = view.width / k;
  const vh = view.height / k;
  const m = (MARGIN * Math.min(view.width, view.height)) / k;
  const cx = rect.x + rect.width / 2;
  const cy = rect.y + rect.height / 2;
  const top = rect.height <= vh - 2 * m ? cy - vh / 2 : rect.y - m;
  let left = rect.width <= vw - 2 * m ? cx - vw / 2 : rect.x - m;
  if (rect.width > vw - 2 * m) {
    let lo = Infinity;
    for (const r of leaves) {
      const within = r.x >= rect.x && r.x + r.width <= rect.x + rect.width && r.y >= rect.y && r.y < top + vh;
      if (within) lo = Math.min(lo, r.x);
    }
    if (lo < Infinity && lo > left + vw - 2 * m) left = lo - m;
  }
  return { x: -k * left, y: -k * top, k };
}

/**
 * What the user is looking at under `frame`: the drawn item nearest the view's centre, with
 * where its top-left corner is on screen; null when every item is on screen (the user sees
 * the whole graph, so no part of it is theirs to keep).
 */
export function lookingAt(
  items: readonly { readonly id: string; readonly rect: Rect }[],
  frame: Frame,
  view: Size,
): { id: string; screenX: number; screenY: number } | null {
  let best: { id: string; screenX: number; screenY: number } | null = null;
  let bestDistance = Infinity;
  let all = true;
  for (const { id, rect } of items) {
    const left = frame.x + frame.k * rect.x;
    const top = frame.y + frame.k * rect.y;
    const right = left + frame.k * rect.width;
    const bottom = top + frame.k * rect.height;
    if (left < -1 || top < -1 || right > view.width + 1 || bottom > view.height + 1) all = false;
    if (right <= 0 || left >= view.width || bottom <= 0 || top >= view.height) continue;
    const d = Math.hypot((left + right) / 2 - view.width / 2, (top + bottom) / 2 - view.height / 2);
    if (d < bestDistance) {
      bestDistance = d;
      best = { id, screenX: left, screenY: top };
    }
  }
  return all ? null : best;
}

/**
 * `frame` moved as little as needed so that the graph does not leave empty canvas it could
 * fill: along each axis a graph smaller than the view is centred, a bigger one keeps its edges
 * at or beyond the view's (with a small margin).
 */
export function clampFrame(frame: Frame, graph: Size, view: Size): Frame {
  const axis = (offset: number, extent: number, room: number): number => {
    const size = frame.k * extent;
    const m = MARGIN * room;
    if (size <= room - 2 * m) return (room - size) / 2;
    return Math.min(m, Math.max(room - m - size, offset));
  };
  return { x: axis(frame.x, graph.width, view.width), y: axis(frame.y, graph.height, view.height), k: frame.k };
}
