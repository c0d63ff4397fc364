/**
 * A layout result as a few typed arrays and strings for the trip from the worker to the page:
 * cloning the object form (every rectangle and route point an object) cost seconds at 50k
 * nodes, on the worker to serialize and on the page's main thread to read back; the arrays are
 * transferred without a copy and read back into the object form in tens of milliseconds.
 */
import type { EdgeRoute, LayoutResult, LayoutStats, Point, Rect } from "./types";

/** `LayoutResult` packed; see packResult. */
export interface PackedResult {
  readonly width: number;
  readonly height: number;
  readonly stats: LayoutStats;
  /** Every rectangle's id, one after the other; `rectIdLengths` says where each ends. */
  readonly rectIds: string;
  readonly rectIdLengths: Uint32Array;
  /** x, y, width, height of each rectangle, in the order of `rectIds`. */
  readonly rects: Float64Array;
  readonly edgeIds: string;
  readonly edgeIdLengths: Uint32Array;
  /** Number of points of each edge's route. */
  readonly pointCounts: Uint32Array;
  /** x, y of every route point, edge after edge. */
  readonly points: Float64Array;
  /** x, y of each edge's label (0, 0 when it has none). */
  readonly labels: Float64Array;
  /** The label texts, edge after edge; `labelTextLengths` says where each ends, -1 for an edge without a label. */
  readonly labelTexts: string;
  readonly labelTextLengths: Int32Array;
}

/** The rectangles' part of a packed result. */
export type PackedRects = Pick<PackedResult, "rectIds" | "rectIdLengths" | "rects">;
/** The routes' part of a packed result. */
export type PackedEdges = Pick<PackedResult, "edgeIds" | "edgeIdLengths" | "pointCounts" | "points" | "labels" | "labelTexts" | "labelTextLengths">;

/** The result packed, and the buffers to transfer with it. */
export function packResult(result: LayoutResult): { packed: PackedResult; transfer: ArrayBuffer[] } {
  return packParts(result, packRects(result.rects), packEdges(result.edges));
}

/** A packed result of its parts, and the buffers to transfer with it. */
export function packParts(size: Pick<LayoutResult, "width" | "height" | "stats">, rects: PackedRects, edges: PackedEdges): { packed: PackedResult; transfer: ArrayBuffer[] } {
  const packed: PackedResult = { width: size.width, height: size.height, stats: size.stats, ...rects, ...edges };
  const transfer = [packed.rectIdLengths, packed.rects, packed.edgeIdLengths, packed.pointCounts, packed.points, packed.labels, packed.labelTextLengths].map((a) => a.buffer as ArrayBuffer);
  return { packed, transfer };
}

export function packRects(result: Readonly<Record<string, Rect>>): PackedRects {
  const rectKeys = Object.keys(result);
  const rects = new Float64Array(4 * rectKeys.length);
  const rectIdLengths = new Uint32Array(rectKeys.length);
  rectKeys.forEach((id, i) => {
    const r = result[id] as Rect;
    rects[4 * i] = r.x;
    rects[4 * i + 1] = r.y;
    rects[4 * i + 2] = r.width;
    rects[4 * i + 3] = r.height;
    rectIdLengths[i] = id.length;
  });
  return { rectIds: rectKeys.join(""), rectIdLengths, rects };
}

function packEdges(edges: readonly EdgeRoute[]): PackedEdges {
  const n = edges.length;
  const edgeIdLengths = new Uint32Array(n);
  const pointCounts = new Uint32Array(n);
  const labels = new Float64Array(2 * n);
  const labelTextLengths = new Int32Array(n);
  let total = 0;
  for (const e of edges) total += e.points.length;
  const points = new Float64Array(2 * total);
  const edgeIds: string[] = [];
  const texts: string[] = [];
  let at = 0;
  edges.forEach((e, i) => {
    edgeIds.push(e.id);
    edgeIdLengths[i] = e.id.length;
    pointCounts[i] = e.points.length;
    for (const p of e.points) {
      points[at++] = p.x;
      points[at++] = p.y;
    }
    if (e.label === null) labelTextLengths[i] = -1;
    else {
      labels[2 * i] = e.label.x;
      labels[2 * i + 1] = e.label.y;
      texts.push(e.label.text);
      labelTextLengths[i] = e.label.text.length;
    }
  });
  return { edgeIds: edgeIds.join(""), edgeIdLengths, pointCounts, points, labels, labelTexts: texts.join(""), labelTextLengths };
}

/** The result `packResult` packed. */
export function unpackResult(packed: PackedResult): LayoutResult {
  const rects: Record<string, Rect> = {};
  let start = 0;
  for (let i = 0; i < packed.rectIdLengths.length; i++) {
    const end = start + (packed.rectIdLengths[i] as number);
    const r = packed.rects;
    rects[packed.rectIds.slice(start, end)] = { x: r[4 * i] as number, y: r[4 * i + 1] as number, width: r[4 * i + 2] as number, height: r[4 * i + 3] as number };
    start = end;
  }
  const edges: EdgeRoute[] = [];
  let idStart = 0;
  let textStart = 0;
  let at = 0;
  const { points: xy, labels } = packed;
  for (let i = 0; i < packed.pointCounts.length; i++) {
    const idEnd = idStart + (packed.edgeIdLengths[i] as number);
    const id = packed.edgeIds.slice(idStart, idEnd);
    idStart = idEnd;
    const count = packed.pointCounts[i] as number;
    const points: Point[] = new Array<Point>(count);
    for (let k = 0; k < count; k++, at += 2) points[k] = { x: xy[at] as number, y: xy[at + 1] as number };
    const length = packed.labelTextLengths[i] as number;
    let label: EdgeRoute["label"] = null;
    if (length >= 0) {
      label = { x: labels[2 * i] as number, y: labels[2 * i + 1] as number, text: packed.labelTexts.slice(textStart, textStart + length) };
      textStart += length;
    }
    edges.push({ id, points, label });
  }
  return { width: packed.width, height: packed.height, rects, edges, stats: packed.stats };
}
