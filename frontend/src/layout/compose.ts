/**
 * Composing the local layouts: placing every container and item at absolute coordinates
 * (top-down), and stitching each route's local pieces into one drawn edge.
 */
import type { GraphvizLayout } from "./graphviz";
import type { Route, Piece } from "./route";
import { sizeOf, workOf, type LayoutTree } from "./tree";
import type { EdgeRoute, Point, Rect } from "./types";

export interface Placement {
  /** Top-left rectangles of every item and container. */
  readonly rects: Record<string, Rect>;
  /** Where each container's own layout has its origin. */
  readonly origins: ReadonlyMap<string, Point>;
}

/** Absolute positions, from the root at (0, 0) down; with a stack of its own, as modules may nest 10,000 deep. */
export function place(tree: LayoutTree): Placement {
  const rects: Record<string, Rect> = {};
  const origins = new Map<string, Point>();
  // The stack as three arrays, not a tuple per member: a request places 50,000 of them.
  const ids: string[] = [tree.root];
  const xs: number[] = [0];
  const ys: number[] = [0];
  for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
    const x = xs.pop() as number;
    const y = ys.pop() as number;
    const w = tree.work.get(id);
    if (w === undefined) {
      const s = sizeOf(tree, id);
      rects[id] = { x, y, width: s.width, height: s.height };
      continue;
    }
    rects[id] = { x, y, width: w.width, height: w.height };
    const centres = elementCentres(w.local as GraphvizLayout, w.spec.members.length);
    const ox = x + w.inset;
    const oy = y + w.spec.header;
    origins.set(id, { x: ox, y: oy });
    w.spec.members.forEach((m, i) => {
      const centre = centres[i] ?? ORIGIN;
      const size = sizeOf(tree, m);
      ids.push(m);
      xs.push(ox + centre.x - size.width / 2);
      ys.push(oy + centre.y - size.height / 2);
    });
  }
  return { rects, origins };
}

const ORIGIN: Point = { x: 0, y: 0 };
const centresOf = new WeakMap<GraphvizLayout, readonly (Point | undefined)[]>();

/** The centres of elements e0..e(n-1) of a local layout, read once per layout (identical modules share one). */
function elementCentres(local: GraphvizLayout, n: number): readonly (Point | undefined)[] {
  let centres = centresOf.get(local);
  if (centres === undefined || centres.length < n) {
    centres = Array.from({ length: n }, (_, i) => local.nodes.get(`e${i}`));
    centresOf.set(local, centres);
  }
  return centres;
}

function pieceInfo(tree: LayoutTree, origins: ReadonlyMap<string, Point>, p: Piece): { points: Point[]; label: Point | null } {
  const o = origins.get(p.container) ?? { x: 0, y: 0 };
  const e = workOf(tree, p.container).local?.edges[p.edge];
  if (e === undefined) return { points: [], label: null };
  return {
    points: e.points.map((q) => ({ x: q.x + o.x, y: q.y + o.y })),
    label: e.label === null ? null : { x: e.label.x + o.x, y: e.label.y + o.y },
  };
}

/**
 * Each route's pieces joined into one Bézier chain, a straight vertical run between the end of
 * one piece and the start of the next; a label shared by several routes is drawn once.
 */
export function stitch(tree: LayoutTree, routes: readonly Route[], origins: ReadonlyMap<string, Point>): EdgeRoute[] {
  const labelsDrawn = new Set<string>();
  return routes.map((r) => {
    const points: Point[] = [];
    let previous: Piece | null = null;
    for (const piece of r.pieces) {
      const next = pieceInfo(tree, origins, piece).points;
      if (next.length === 0) continue;
      const last = points[points.length - 1];
      const first = next[0] as Point;
      if (last === undefined || previous === null) {
        points.push(...next);
        previous = piece;
        continue;
      }
      // An outer piece meets a module's border at the field nearest to the inner piece's port
      // (dot.ts), up to half a field beside it: its end (or start) and the control point next
      // to it move over the port, so the route crosses the border and the header straight.
      if (tree.parentOf.get(previous.container) === piece.container) {
        for (const k of [0, 1]) {
          const p = next[k] as Point;
          next[k] = { x: p.x + last.x - first.x, y: p.y };
        }
      } else {
        for (const k of [points.length - 2, points.length - 1]) {
          const p = points[k] as Point;
          points[k] = { x: p.x + first.x - last.x, y: p.y };
        }
      }
      const end = points[points.length - 1] as Point;
      const start = next[0] as Point;
      const dy = (start.y - end.y) / 3;
      points.push({ x: end.x, y: end.y + dy }, { x: start.x, y: start.y - dy }, start, ...next.slice(1));
      previous = piece;
    }
    let label: EdgeRoute["label"] = null;
    if (r.labelPiece !== null) {
      const key = `${r.labelPiece.container}#${r.labelPiece.edge}`;
      const info = pieceInfo(tree, origins, r.labelPiece);
      const text = workOf(tree, r.labelPiece.container).edges[r.labelPiece.edge]?.labels.join(", ") ?? "";
      if (info.label !== null && !labelsDrawn.has(key)) {
        labelsDrawn.add(key);
        label = { x: info.label.x, y: info.label.y, text };
      }
    }
    return { id: r.id, points, label };
  });
}
