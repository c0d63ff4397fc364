/**
 * A layout result as a few typed arrays and strings for the trip from the worker to the page:
 * cloning the object form (every rectangle and route point an object) cost seconds at 50k
 * nodes, on the worker to serialize and on the page's main thread to read back; the arrays are
 * transferred without a copy and read back into the object form in tens of milliseconds. A
 * request goes to the worker packed the same way (packGraph), for the same reason.
 */
import type { EdgeRoute, LayoutContainerSpec, LayoutEdgeSpec, LayoutGraph, LayoutItemSpec, LayoutResult, LayoutStats, Point, Rect } from "./types";

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

/** Strings one after the other, and where each ends; a length of -1 stands for null. */
export interface PackedStrings {
  readonly text: string;
  readonly lengths: Int32Array;
}

function packStrings(strings: readonly (string | null)[]): PackedStrings {
  const lengths = new Int32Array(strings.length);
  const parts: string[] = [];
  strings.forEach((t, i) => {
    if (t === null) lengths[i] = -1;
    else {
      parts.push(t);
      lengths[i] = t.length;
    }
  });
  return { text: parts.join(""), lengths };
}

function unpackStrings(packed: PackedStrings): (string | null)[] {
  const out = new Array<string | null>(packed.lengths.length);
  let start = 0;
  for (let i = 0; i < packed.lengths.length; i++) {
    const length = packed.lengths[i] as number;
    if (length < 0) out[i] = null;
    else {
      out[i] = packed.text.slice(start, start + length);
      start += length;
    }
  }
  return out;
}

/** `LayoutGraph` packed; see packGraph. */
export interface PackedGraph {
  readonly root: string;
  readonly itemIds: PackedStrings;
  /** Width and height of each item. */
  readonly itemSizes: Float64Array;
  readonly containerIds: PackedStrings;
  readonly containerParents: PackedStrings;
  /** Number of members of each container; `members` holds them, container after container. */
  readonly memberCounts: Uint32Array;
  readonly members: PackedStrings;
  /** header, minWidth, control and title (NaN when absent) of each container. */
  readonly containerSizes: Float64Array;
  readonly edgeIds: PackedStrings;
  readonly edgeSources: PackedStrings;
  readonly edgeTargets: PackedStrings;
  readonly edgeLabels: PackedStrings;
}

/**
 * A layout request packed for the worker: a structured clone of 150,000 small objects cost
 * the page's main thread a tenth of a second at 50,000 nodes, of a few strings and arrays
 * almost nothing. Not transferred: the client may send it again, to the page.
 */
export function packGraph(graph: LayoutGraph): PackedGraph {
  const { items, containers, edges } = graph;
  const itemSizes = new Float64Array(2 * items.length);
  items.forEach((item, i) => {
    itemSizes[2 * i] = item.width;
    itemSizes[2 * i + 1] = item.height;
  });
  const memberCounts = new Uint32Array(containers.length);
  const containerSizes = new Float64Array(4 * containers.length);
  const members: string[] = [];
  containers.forEach((c, i) => {
    memberCounts[i] = c.members.length;
    for (const m of c.members) members.push(m);
    containerSizes.set([c.header, c.minWidth, c.control, c.title ?? NaN], 4 * i);
  });
  return {
    root: graph.root,
    itemIds: packStrings(items.map((item) => item.id)),
    itemSizes,
    containerIds: packStrings(containers.map((c) => c.id)),
    containerParents: packStrings(containers.map((c) => c.parent)),
    memberCounts,
    members: packStrings(members),
    containerSizes,
    edgeIds: packStrings(edges.map((e) => e.id)),
    edgeSources: packStrings(edges.map((e) => e.source)),
    edgeTargets: packStrings(edges.map((e) => e.target)),
    edgeLabels: packStrings(edges.map((e) => e.label)),
  };
}

/** The request `packGraph` packed. */
export function unpackGraph(packed: PackedGraph): LayoutGraph {
  const itemIds = unpackStrings(packed.itemIds);
  const items: LayoutItemSpec[] = itemIds.map((id, i) => ({ id: id ?? "", width: packed.itemSizes[2 * i] as number, height: packed.itemSizes[2 * i + 1] as number }));
  const memberIds = unpackStrings(packed.members) as string[];
  const parents = unpackStrings(packed.containerParents);
  const sizes = packed.containerSizes;
  let at = 0;
  const containers: LayoutContainerSpec[] = unpackStrings(packed.containerIds).map((id, i) => {
    const count = packed.memberCounts[i] as number;
    const members = memberIds.slice(at, at + count);
    at += count;
    const title = sizes[4 * i + 3] as number;
    const spec = { id: id ?? "", parent: parents[i] ?? null, members, header: sizes[4 * i] as number, minWidth: sizes[4 * i + 1] as number, control: sizes[4 * i + 2] as number };
    return Number.isNaN(title) ? spec : { ...spec, title };
  });
  const sources = unpackStrings(packed.edgeSources);
  const targets = unpackStrings(packed.edgeTargets);
  const labels = unpackStrings(packed.edgeLabels);
  const edges: LayoutEdgeSpec[] = unpackStrings(packed.edgeIds).map((id, i) => ({ id: id ?? "", source: sources[i] ?? "", target: targets[i] ?? "", label: labels[i] ?? "" }));
  return { root: packed.root, items, containers, edges };
}
