/**
 * Long edges of a local layout, drawn as arcs beside it instead of being routed by Graphviz.
 *
 * Graphviz's `dot` routes an edge that spans k ranks through k - 1 virtual nodes, and its
 * crossing minimisation and positioning grow much faster than linearly in them. A module
 * whose many children all read one value, or all hand a value out of the module, has such a
 * fan of long edges: an 80-layer Llama opened with its layers unfolded has 160 rotary
 * embedding edges (one value, every layer) and 160 key/value cache edges (every layer, out of
 * the model), and Graphviz took minutes on it (4.8 s at 32 layers; GPT-2's 24 unfolded blocks,
 * about 1,100 virtual nodes, take 0.2 s). When the estimated number of virtual nodes passes
 * ARC_BUDGET, edges longer than ARC_MIN_SPAN ranks are left out of the DOT text and drawn
 * afterwards as orthogonal arcs in lanes right of the laid-out members (see addArcs). Every
 * other layout is unchanged.
 */
import { elementIndex, fieldCentre, type LocalEdge, type LocalElement } from "./dot";
import type { GraphvizLayout } from "./graphviz";
import type { Point } from "./types";

/** Estimated virtual nodes above which long edges become arcs. */
export const ARC_BUDGET = 1500;
/** Edges spanning more ranks than this become arcs (in a layout over budget). */
export const ARC_MIN_SPAN = 3;
/** Gap between the rightmost member and the first lane (px). */
export const ARC_GAP = 24;
/** Distance between lanes (px). */
export const ARC_LANE = 10;
/** Lanes used at most; further sources share them. */
export const ARC_LANES = 8;

/**
 * Indices of the edges to draw as arcs (empty when the layout is cheap enough). Ranks are
 * estimated as Graphviz assigns them without labels: longest path from the entry ports, exit
 * ports on one last rank. A cycle (not expected: edges follow execution order) gives none.
 */
export function arcEdges(elements: number, inPorts: number, outPorts: number, edges: readonly LocalEdge[]): Set<number> {
  const arcs = new Set<number>();
  const rank = new Map<string, number>();
  const incoming = new Map<string, number>();
  const out = new Map<string, number[]>();
  const names = [
    ...Array.from({ length: inPorts }, (_, i) => `i${i}`),
    ...Array.from({ length: elements }, (_, i) => `e${i}`),
  ];
  for (const n of names) incoming.set(n, 0);
  edges.forEach((e, k) => {
    if (e.to.startsWith("o")) return;
    incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
    const list = out.get(e.from);
    if (list === undefined) out.set(e.from, [k]);
    else list.push(k);
  });
  const ready = names.filter((n) => incoming.get(n) === 0);
  for (const n of ready) rank.set(n, 0);
  let seen = 0;
  while (ready.length > 0) {
    const n = ready.pop() as string;
    seen++;
    const r = rank.get(n) ?? 0;
    for (const k of out.get(n) ?? []) {
      const to = (edges[k] as LocalEdge).to;
      rank.set(to, Math.max(rank.get(to) ?? 0, r + 1));
      const left = (incoming.get(to) ?? 0) - 1;
      incoming.set(to, left);
      if (left === 0) ready.push(to);
    }
  }
  if (seen !== names.length) return arcs;
  let last = 0;
  for (const r of rank.values()) last = Math.max(last, r);
  const sink = last + 1;
  const spans = edges.map((e) => (e.to.startsWith("o") ? sink : (rank.get(e.to) ?? 0)) - (rank.get(e.from) ?? 0));
  // A labelled edge is routed through a label node on every other rank: about twice the work.
  const cost = spans.reduce((sum, span, k) => sum + Math.max(0, span - 1) * ((edges[k] as LocalEdge).label === "" ? 1 : 2), 0);
  if (cost <= ARC_BUDGET) return arcs;
  spans.forEach((span, k) => {
    if (span > ARC_MIN_SPAN) arcs.add(k);
  });
  return arcs;
}

/**
 * Adds the arcs to a layout Graphviz made without them. An arc runs around the members, on
 * their right: from its source out to its lane, down the lane, and back to its target, with
 * rounded corners. It leaves a box that is the rightmost of its rank from the box's right side,
 * and an open module (whose own contents continue the edge at its bottom, below the module's
 * own exit port) or any other box from its bottom, turning in the gap below the rank; it enters
 * the same way, from the right or from the gap above through the top (an open module above its
 * own entry port), and reaches an exit port along the bottom. The lanes lie
 * right of every member and the gaps between ranks hold no box, so an arc crosses none. One
 * lane per source, and one for all the edges leaving the module, so that the arcs of one value
 * (and those going out) run together. The layout grows to the right to hold the lanes.
 */
export function addArcs(
  local: GraphvizLayout,
  elements: readonly LocalElement[],
  edges: readonly LocalEdge[],
  arcs: ReadonlySet<number>,
): GraphvizLayout {
  if (arcs.size === 0) return local;
  const at = (name: string): Point => local.nodes.get(name) ?? { x: 0, y: 0 };
  const size = (name: string): LocalElement => elements[elementIndex(name)] ?? { width: 0, height: 0 };
  // Each rank's extent (members sharing a centre line) and its rightmost member.
  const bottoms = new Map<number, number>();
  const tops = new Map<number, number>();
  const rightmost = new Map<number, number>();
  let right = 0;
  elements.forEach((e, i) => {
    const c = at(`e${i}`);
    const row = Math.round(c.y);
    bottoms.set(row, Math.max(bottoms.get(row) ?? -Infinity, c.y + e.height / 2));
    tops.set(row, Math.min(tops.get(row) ?? Infinity, c.y - e.height / 2));
    const other = rightmost.get(row);
    if (other === undefined || at(`e${other}`).x < c.x) rightmost.set(row, i);
    right = Math.max(right, c.x + e.width / 2);
  });
  // Where an edge meets an open element's top (bottom) border: over (under) the element's own
  // port, at the field the engine chose for it (see borderField), else at the centre.
  const borderX = (name: string, field: number | undefined): number => {
    const c = at(name);
    if (field === undefined) return c.x;
    const width = size(name).width;
    return c.x - width / 2 + fieldCentre(width, field);
  };
  const bySide = (name: string): boolean => {
    const i = elementIndex(name);
    return i >= 0 && elements[i]?.open !== true && rightmost.get(Math.round(at(name).y)) === i;
  };
  const lanes = new Map<string, number>();
  const routed = [...local.edges];
  for (const k of [...arcs].sort((a, b) => a - b)) {
    const e = edges[k] as LocalEdge;
    const key = e.to.startsWith("o") ? "exit" : e.from;
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = lanes.size % ARC_LANES;
      lanes.set(key, lane);
    }
    const x = right + ARC_GAP + lane * ARC_LANE;
    const from = at(e.from);
    const to = at(e.to);
    const corners: Point[] = [];
    // On a box's right side, arcs leave below its middle and arrive above it, so that a box
    // both reading a bus and writing to one shows two lines.
    if (bySide(e.from)) {
      const y = from.y + size(e.from).height / 4;
      corners.push({ x: from.x + size(e.from).width / 2, y }, { x, y });
    } else {
      const below = (bottoms.get(Math.round(from.y)) ?? from.y) + ARC_STEP;
      const out = borderX(e.from, e.tailField);
      corners.push({ x: out, y: from.y + size(e.from).height / 2 }, { x: out, y: below }, { x, y: below });
    }
    if (e.to.startsWith("o") || bySide(e.to)) {
      const end = { x: to.x + size(e.to).width / 2, y: to.y - size(e.to).height / 4 };
      corners.push({ x, y: end.y }, end);
    } else {
      const above = (tops.get(Math.round(to.y)) ?? to.y) - ARC_STEP;
      const into = borderX(e.to, e.headField);
      corners.push({ x, y: above }, { x: into, y: above }, { x: into, y: to.y - size(e.to).height / 2 });
    }
    const first = corners[0] as Point;
    const last = corners[corners.length - 1] as Point;
    const downward = corners.every((p, i) => i === 0 || p.y >= (corners[i - 1] as Point).y);
    routed[k] = { points: rounded(downward ? corners : [first, last]), label: null };
  }
  const lanesUsed = Math.min(lanes.size, ARC_LANES);
  const width = Math.max(local.width, right + ARC_GAP + (lanesUsed - 1) * ARC_LANE + ARC_GAP / 2);
  return { ...local, width, edges: routed };
}

/** How far below a rank (and above the next) an arc turns (px): inside the gap between them. */
const ARC_STEP = 8;
/** Radius of an arc's corners (px), less where its runs are shorter. */
const CORNER = 8;

/**
 * A polyline with rounded corners as a chain of cubic Béziers (start point, then control,
 * control, end triples): straight runs, and at each corner a curve that is close to a quarter
 * circle (control points 0.5523 r along the two runs).
 */
function rounded(corners: readonly Point[]): Point[] {
  const first = corners[0] as Point;
  const points: Point[] = [first];
  const line = (a: Point, b: Point): void => {
    points.push({ x: a.x + (b.x - a.x) / 3, y: a.y + (b.y - a.y) / 3 },
      { x: a.x + (2 * (b.x - a.x)) / 3, y: a.y + (2 * (b.y - a.y)) / 3 }, b);
  };
  let from = first;
  for (let i = 1; i < corners.length - 1; i++) {
    const a = corners[i - 1] as Point;
    const c = corners[i] as Point;
    const b = corners[i + 1] as Point;
    const lenIn = Math.hypot(c.x - a.x, c.y - a.y);
    const lenOut = Math.hypot(b.x - c.x, b.y - c.y);
    const r = Math.min(CORNER, lenIn / 2, lenOut / 2);
    if (r <= 0) continue;
    const din = { x: (c.x - a.x) / lenIn, y: (c.y - a.y) / lenIn };
    const dout = { x: (b.x - c.x) / lenOut, y: (b.y - c.y) / lenOut };
    const enter = { x: c.x - din.x * r, y: c.y - din.y * r };
    const leave = { x: c.x + dout.x * r, y: c.y + dout.y * r };
    line(from, enter);
    const k = 0.5523 * r;
    points.push({ x: enter.x + din.x * k, y: enter.y + din.y * k }, { x: leave.x - dout.x * k, y: leave.y - dout.y * k }, leave);
    from = leave;
  }
  line(from, corners[corners.length - 1] as Point);
  return points;
}
