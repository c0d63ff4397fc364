/**
 * Composing the local layouts: placing every container and item at absolute coordinates
 * (top-down), and stitching each route's local pieces into one drawn edge.
 */
import type { GraphvizLayout } from "./graphviz";
import type { Route, Piece } from "./route";
import { sizeOf, workOf, type LayoutTree } from "./tree";
import type { PackedEdges, PackedRects } from "./packed";
import type { Point } from "./types";

export interface Placement {
  /** Top-left rectangles of every item and container but those left out, packed (packed.ts). */
  readonly rects: PackedRects;
  /** The size of the root's block. */
  readonly width: number;
  readonly height: number;
  /** Where each container's own layout has its origin. */
  readonly origins: ReadonlyMap<string, Point>;
}

/**
 * Absolute positions, from the root at (0, 0) down, with a stack of its own, as modules may nest
 * 10,000 deep; the rectangles of `leftOut` (segments: never drawn) are not written.
 */
export function place(tree: LayoutTree, leftOut: ReadonlySet<string>): Placement {
  let count = 1;
  for (const w of tree.work.values()) count += w.spec.members.length;
  count -= leftOut.size;
  const xywh = new Float64Array(4 * Math.max(0, count));
  const rectIdLengths = new Uint32Array(Math.max(0, count));
  const rectIds: string[] = [];
  let at = 0;
  const origins = new Map<string, Point>();
  // The stack as three arrays, not a tuple per member: a request places 50,000 of them.
  const ids: string[] = [tree.root];
  const xs: number[] = [0];
  const ys: number[] = [0];
  const root = sizeOf(tree, tree.root);
  for (let id = ids.pop(); id !== undefined; id = ids.pop()) {
    const x = xs.pop() as number;
    const y = ys.pop() as number;
    const w = tree.work.get(id);
    if (!leftOut.has(id) && at < rectIdLengths.length) {
      const s = w ?? sizeOf(tree, id);
      xywh[4 * at] = x;
      xywh[4 * at + 1] = y;
      xywh[4 * at + 2] = s.width;
      xywh[4 * at + 3] = s.height;
      rectIdLengths[at++] = id.length;
      rectIds.push(id);
    }
    if (w === undefined) continue;
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
  // Exact unless a container is out of the root's reach (never expected): then only what was placed.
  const rects = at === rectIdLengths.length ? { rectIds: rectIds.join(""), rectIdLengths, rects: xywh } : { rectIds: rectIds.join(""), rectIdLengths: rectIdLengths.slice(0, at), rects: xywh.slice(0, 4 * at) };
  return { rects, width: root.width, height: root.height, origins };
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

/**
 * Each route's pieces joined into one Bézier chain, a straight vertical run between the end of
 * one piece and the start of the next; a label shared by several routes is drawn once. Written
 * straight into the packed form the page receives (packed.ts): at 50,000 nodes an object per
 * point was most of the cost, in allocation and garbage collection.
 */
export function stitch(tree: LayoutTree, routes: readonly Route[], origins: ReadonlyMap<string, Point>): PackedEdges {
  const n = routes.length;
  const pointCounts = new Uint32Array(n);
  let total = 0;
  routes.forEach((r, i) => {
    let count = 0;
    for (const piece of r.pieces) {
      const length = localEdge(tree, piece)?.points.length ?? 0;
      if (length > 0) count += count === 0 ? length : length + 2;
    }
    pointCounts[i] = count;
    total += count;
  });
  const xy = new Float64Array(2 * total);
  const labels = new Float64Array(2 * n);
  const labelTextLengths = new Int32Array(n);
  const edgeIdLengths = new Uint32Array(n);
  const ids: string[] = [];
  const texts: string[] = [];
  const labelsDrawn = new Set<string>();
  let at = 0;
  routes.forEach((r, i) => {
    ids.push(r.id);
    edgeIdLengths[i] = r.id.length;
    const begin = at;
    let previous: Piece | null = null;
    for (const piece of r.pieces) {
      const points = localEdge(tree, piece)?.points ?? [];
      if (points.length === 0) continue;
      const o = origins.get(piece.container) ?? ORIGIN;
      if (previous === null) {
        for (const q of points) {
          xy[at++] = q.x + o.x;
          xy[at++] = q.y + o.y;
        }
        previous = piece;
        continue;
      }
      const lastX = xy[at - 2] as number;
      const first = points[0] as Point;
      const firstX = first.x + o.x;
      const firstY = first.y + o.y;
      let startX = firstX;
      let secondX = points.length > 1 ? (points[1] as Point).x + o.x : 0;
      // An outer piece meets a module's border at the field nearest to the inner piece's port
      // (dot.ts), up to half a field beside it: its end (or start) and the control point next
      // to it move over the port, so the route crosses the border and the header straight.
      // The sums are written as the object form wrote them, (a + b) - c, so routes stay bit for bit.
      if (tree.parentOf.get(previous.container) === piece.container) {
        startX = firstX + lastX - firstX;
        secondX = secondX + lastX - firstX;
      } else {
        if (at - 4 >= begin) xy[at - 4] = (xy[at - 4] as number) + firstX - lastX;
        xy[at - 2] = lastX + firstX - lastX;
      }
      const endX = xy[at - 2] as number;
      const endY = xy[at - 1] as number;
      const dy = (firstY - endY) / 3;
      xy[at++] = endX;
      xy[at++] = endY + dy;
      xy[at++] = startX;
      xy[at++] = firstY - dy;
      xy[at++] = startX;
      xy[at++] = firstY;
      for (let k = 1; k < points.length; k++) {
        const q = points[k] as Point;
        xy[at++] = k === 1 ? secondX : q.x + o.x;
        xy[at++] = q.y + o.y;
      }
      previous = piece;
    }
    labelTextLengths[i] = -1;
    const drawnIn = r.labelPiece;
    if (drawnIn === null) return;
    const key = `${drawnIn.container}#${drawnIn.edge}`;
    const label = localEdge(tree, drawnIn)?.label ?? null;
    if (label === null || labelsDrawn.has(key)) return;
    labelsDrawn.add(key);
    const o = origins.get(drawnIn.container) ?? ORIGIN;
    const text = workOf(tree, drawnIn.container).edges[drawnIn.edge]?.labels.join(", ") ?? "";
    labels[2 * i] = label.x + o.x;
    labels[2 * i + 1] = label.y + o.y;
    texts.push(text);
    labelTextLengths[i] = text.length;
  });
  return { edgeIds: ids.join(""), edgeIdLengths, pointCounts, points: xy, labels, labelTexts: texts.join(""), labelTextLengths };
}

/** The local edge of piece `p` in its container's own layout. */
function localEdge(tree: LayoutTree, p: Piece): GraphvizLayout["edges"][number] | undefined {
  return workOf(tree, p.container).local?.edges[p.edge];
}
