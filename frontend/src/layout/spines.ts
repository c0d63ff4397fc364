/**
 * Segments stacked on a common spine. Graphviz centres the elements of a container and its
 * drawing starts at its leftmost part: when a +/− narrowed one block of a 2,000-block stack, the
 * block's segment came back 16 points wider on one side and every other segment, with all its
 * contents, moved 8 points sideways. A segment's spine is the x most of its elements are centred
 * on (the stack's own line); a container of segments places each segment so that the spines
 * line up, from the segments' own layouts alone, so that a click moves the rest of the stack
 * only up or down, and a fresh page in the same state draws the same.
 */
import type { GraphvizLayout } from "./graphviz";
import type { Point } from "./types";

/** A segment as its container stacks it: its block's size and its spine (from the block's left edge). */
export interface SpinedElement {
  readonly width: number;
  readonly height: number;
  readonly spine: number;
}

/** The x most of elements e0..e(n-1) are centred on (the lowest of equally common ones); half the width when there are none. */
export function spineOf(local: GraphvizLayout, n: number): number {
  const counts = new Map<number, number>();
  let best = local.width / 2;
  let most = 0;
  for (let i = 0; i < n; i++) {
    const at = local.nodes.get(`e${i}`);
    if (at === undefined) continue;
    // Graphviz writes positions to hundredths; half a point apart is the same line.
    const key = Math.round(at.x * 2) / 2;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count > most || (count === most && key < best)) {
      most = count;
      best = key;
    }
  }
  return best;
}

/**
 * The layout of a container of segments with each segment moved sideways so that its spine
 * lies on the container's spine. The rest of the drawing (ports, edges, labels) moves with the
 * segments beside it: each point by its segment's shift at that height, and between two segments
 * by a shift that goes from one's to the other's; stitching joins each edge to the ports it
 * meets. Graphviz lets a long stack of segments drift sideways (14 points per segment in a
 * 10,000-block stack), so the shifts differ from segment to segment. The drawing starts at its
 * leftmost part as moved (`labelWidths`: each edge's label's width), never at where Graphviz had
 * put the segment that changed.
 */
export function alignSegments(local: GraphvizLayout, elements: readonly SpinedElement[], labelWidths: readonly number[]): GraphvizLayout {
  if (elements.length === 0) return local;
  let spine = 0;
  let right = 0;
  for (const e of elements) {
    spine = Math.max(spine, e.spine);
    right = Math.max(right, e.width - e.spine);
  }
  const centres = elements.map((e) => spine - e.spine + e.width / 2);
  const bands: Band[] = [];
  elements.forEach((e, i) => {
    const at = local.nodes.get(`e${i}`);
    if (at !== undefined) bands.push({ top: at.y - e.height / 2, bottom: at.y + e.height / 2, shift: (centres[i] as number) - at.x });
  });
  bands.sort((a, b) => a.top - b.top);
  const shiftAt = (y: number): number => {
    let lo = 0;
    let hi = bands.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((bands[mid] as Band).bottom < y) lo = mid + 1;
      else hi = mid;
    }
    // Bands 0..lo-1 end above y; band lo (if any) ends at or below it.
    const below = bands[lo];
    const above = bands[lo - 1];
    if (below === undefined) return above?.shift ?? 0;
    if (above === undefined || y >= below.top) return below.shift;
    return above.shift + ((below.shift - above.shift) * (y - above.bottom)) / Math.max(1e-9, below.top - above.bottom);
  };
  let lo = 0;
  let hi = spine + right;
  const move = (p: Point): Point => ({ x: p.x + shiftAt(p.y), y: p.y });
  const nodes = new Map<string, Point>();
  for (const [name, at] of local.nodes) {
    const moved = move(at);
    nodes.set(name, moved);
    if (!name.startsWith("e")) [lo, hi] = [Math.min(lo, moved.x), Math.max(hi, moved.x)];
  }
  centres.forEach((c, i) => {
    const at = local.nodes.get(`e${i}`);
    if (at !== undefined) nodes.set(`e${i}`, { x: c, y: at.y });
  });
  const edges = local.edges.map((e, k) => {
    if (e === undefined) return e;
    const points = e.points.map(move);
    for (const p of points) [lo, hi] = [Math.min(lo, p.x), Math.max(hi, p.x)];
    const label = e.label === null ? null : move(e.label);
    const half = (labelWidths[k] ?? 0) / 2;
    if (label !== null) [lo, hi] = [Math.min(lo, label.x - half), Math.max(hi, label.x + half)];
    return { points, label };
  });
  // Nothing may start left of 0: what reaches further left than the segments moves all of it right.
  if (lo < 0) {
    const right = (p: Point): Point => ({ x: p.x - lo, y: p.y });
    for (const [name, at] of nodes) nodes.set(name, right(at));
    for (const e of edges) if (e !== undefined) Object.assign(e, { points: e.points.map(right), label: e.label === null ? null : right(e.label) });
  }
  return { width: hi - lo, height: local.height, nodes, edges };
}

interface Band {
  readonly top: number;
  readonly bottom: number;
  /** How far the segment moves sideways. */
  readonly shift: number;
}
