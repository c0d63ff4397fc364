/**
 * Edge labels beside their own edge. Graphviz puts a label right of its edge; where another
 * edge (of another value) runs close on that side, the label sat between the two and read as
 * either's. Such a label moves to the other side of its own edge when it is clearly nearer to
 * it there and covers no box.
 */
import type { LocalEdge, LocalElement } from "./dot";
import type { GraphvizLayout } from "./graphviz";
import type { Point, Rect } from "./types";

/** A label is taken for another edge's when that edge is less than this many times as far. */
export const LABEL_CLEARANCE = 1.5;
/** Width of one label character as drawn (9 px sans-serif digits and ×), with some margin. */
const CHAR_WIDTH = 5.4;
export const LABEL_HEIGHT = 11;
/** Side of a cell of the grids that find the labels and boxes near a curve. */
const LABEL_CELL = 128;

/** A straight piece of a sampled route. */
interface Segment {
  readonly route: number;
  readonly source: string;
  readonly a: Point;
  readonly b: Point;
}

/** How far from a label the routes that could be taken for its own are looked for. */
const REACH = 60;

/** Points along a cubic Bézier chain, a few per curve: close enough to measure distances. */
function sample(points: readonly Point[]): Point[] {
  const out: Point[] = [];
  if (points.length > 0) out.push(points[0] as Point);
  for (let i = 0; i + 3 < points.length; i += 3) {
    const [a, b, c, d] = [points[i] as Point, points[i + 1] as Point, points[i + 2] as Point, points[i + 3] as Point];
    // A straight run (an arc's lane, a join between pieces) is one segment, however long.
    const straight = distance(b, a, d) < 0.5 && distance(c, a, d) < 0.5;
    const steps = straight ? 1 : Math.max(2, Math.ceil((Math.abs(d.x - a.x) + Math.abs(d.y - a.y)) / 16));
    for (let s = 1; s <= steps; s++) {
      const t = s / steps;
      const u = 1 - t;
      out.push({
        x: u * u * u * a.x + 3 * u * u * t * b.x + 3 * u * t * t * c.x + t * t * t * d.x,
        y: u * u * u * a.y + 3 * u * u * t * b.y + 3 * u * t * t * c.y + t * t * t * d.y,
      });
    }
  }
  return out;
}

/** Cell keys stay distinct while cell rows stay within ±CELL_ROW / 2 (±67 million px at 128 px cells). */
const CELL_ROW = 1 << 20;

/** The key of grid cell (cx, cy): a number, since a string built per cell looked up cost more than the lookup. */
function cellKey(cx: number, cy: number): number {
  return cx * CELL_ROW + cy;
}

class Grid<T> {
  private readonly cells = new Map<number, T[]>();
  constructor(private readonly cell: number) {}
  add(x0: number, y0: number, x1: number, y1: number, value: T): void {
    for (let cx = Math.floor(x0 / this.cell); cx <= Math.floor(x1 / this.cell); cx++) {
      for (let cy = Math.floor(y0 / this.cell); cy <= Math.floor(y1 / this.cell); cy++) {
        const key = cellKey(cx, cy);
        const list = this.cells.get(key);
        if (list === undefined) this.cells.set(key, [value]);
        else if (list[list.length - 1] !== value) list.push(value);
      }
    }
  }
  any(x0: number, y0: number, x1: number, y1: number): boolean {
    for (let cx = Math.floor(x0 / this.cell); cx <= Math.floor(x1 / this.cell); cx++) {
      for (let cy = Math.floor(y0 / this.cell); cy <= Math.floor(y1 / this.cell); cy++) {
        if (this.cells.has(cellKey(cx, cy))) return true;
      }
    }
    return false;
  }
  near(x0: number, y0: number, x1: number, y1: number): Set<T> {
    const found = new Set<T>();
    for (let cx = Math.floor(x0 / this.cell); cx <= Math.floor(x1 / this.cell); cx++) {
      for (let cy = Math.floor(y0 / this.cell); cy <= Math.floor(y1 / this.cell); cy++) {
        const list = this.cells.get(cellKey(cx, cy));
        if (list !== undefined) for (const v of list) found.add(v);
      }
    }
    return found;
  }
}

function distance(p: Point, a: Point, b: Point): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len));
  return Math.hypot(a.x + t * dx - p.x, a.y + t * dy - p.y);
}

/** A route to place the label of: its Bézier points, its label's centre and text length, its value. */
export interface LabelledRoute {
  readonly points: readonly Point[];
  readonly label: Point | null;
  readonly chars: number;
  readonly value: string;
}

/**
 * Where each route's label goes (null for none): moved to the other side of its own route when
 * it is not clearly by it, where that is clearly better and covers none of `boxes`.
 */
export function placeLabels(routes: readonly LabelledRoute[], boxes: readonly Rect[]): (Point | null)[] {
  const labels = new Grid<number>(LABEL_CELL);
  const nearby = new Map<number, Segment[]>();
  routes.forEach((e, k) => {
    if (e.label === null) return;
    labels.add(e.label.x, e.label.y, e.label.x, e.label.y, k);
    nearby.set(k, []);
  });
  if (nearby.size === 0) return routes.map((e) => e.label);
  // Only the curves that pass near a label are sampled, into segments near each label.
  const margin = 2 * REACH;
  routes.forEach((e, k) => {
    for (let i = 0; i + 3 < e.points.length; i += 3) {
      const [a, b, c, d] = [e.points[i] as Point, e.points[i + 1] as Point, e.points[i + 2] as Point, e.points[i + 3] as Point];
      const x0 = Math.min(a.x, b.x, c.x, d.x) - margin;
      const y0 = Math.min(a.y, b.y, c.y, d.y) - margin;
      const x1 = Math.max(a.x, b.x, c.x, d.x) + margin;
      const y1 = Math.max(a.y, b.y, c.y, d.y) + margin;
      if (!labels.any(x0, y0, x1, y1)) continue;
      const points = sample([a, b, c, d]);
      for (let j = 0; j + 1 < points.length; j++) {
        const p = points[j] as Point;
        const q = points[j + 1] as Point;
        const segment = { route: k, source: e.value, a: p, b: q };
        const [sx0, sy0, sx1, sy1] = [Math.min(p.x, q.x) - margin, Math.min(p.y, q.y) - margin, Math.max(p.x, q.x) + margin, Math.max(p.y, q.y) + margin];
        for (const l of labels.near(sx0, sy0, sx1, sy1)) {
          const at = routes[l]?.label as Point;
          if (at.x >= sx0 && at.x <= sx1 && at.y >= sy0 && at.y <= sy1) nearby.get(l)?.push(segment);
        }
      }
    }
  });
  // Distances from `p` to its own route `k` and to the nearest route of another value.
  const measure = (p: Point, k: number, value: string): { own: number; other: number; at: Point | null } => {
    let own = Infinity;
    let other = Infinity;
    let at: Point | null = null;
    for (const s of nearby.get(k) ?? []) {
      const d = distance(p, s.a, s.b);
      if (s.route === k) {
        if (d < own) own = d;
        // The own route's x at the label's height.
        if ((s.a.y - p.y) * (s.b.y - p.y) <= 0 && s.a.y !== s.b.y) at = { x: s.a.x + ((p.y - s.a.y) / (s.b.y - s.a.y)) * (s.b.x - s.a.x), y: p.y };
      } else if (s.source !== value && d < other) other = d;
    }
    return { own, other, at };
  };
  return routes.map((e, k) => {
    const label = e.label;
    if (label === null) return null;
    const here = measure(label, k, e.value);
    if (here.own > REACH || here.at === null || here.other >= LABEL_CLEARANCE * here.own) return label;
    const mirrored = { x: 2 * here.at.x - label.x, y: label.y };
    const there = measure(mirrored, k, e.value);
    if (there.other < LABEL_CLEARANCE * there.own) return label;
    const w = (e.chars * CHAR_WIDTH) / 2;
    const h = LABEL_HEIGHT / 2;
    const [x0, y0, x1, y1] = [mirrored.x - w, mirrored.y - h, mirrored.x + w, mirrored.y + h];
    // Boxes are checked one by one, only for a label about to move: a grid of them costs the
    // cells a box covers, which for a module nested thousands deep is its whole height each level.
    for (const r of boxes) {
      if (x0 < r.x + r.width && r.x < x1 && y0 < r.y + r.height && r.y < y1) return label;
    }
    return mirrored;
  });
}

/** How many characters a local edge's label draws: its DOT text without the quotes dotLabel adds. */
function labelChars(e: LocalEdge): number {
  return Math.max(0, e.label.length - 2);
}

/** How wide a local edge's label is drawn. */
export function labelWidth(e: LocalEdge): number {
  return labelChars(e) * CHAR_WIDTH;
}

/**
 * A container's own layout with its labels placed (see placeLabels): every edge drawn in the
 * container's area is one of its local edges or inside a member's box, so it is done once per
 * local layout, before caching. Local edges from one element's one side carry one value.
 */
export function localLabels(local: GraphvizLayout, elements: readonly LocalElement[], edges: readonly LocalEdge[]): GraphvizLayout {
  const routes = edges.map((e, k) => ({
    points: local.edges[k]?.points ?? [],
    label: local.edges[k]?.label ?? null,
    chars: labelChars(e),
    value: `${e.from}:${e.tailField ?? ""}`,
  }));
  const boxes = elements.map((el, i) => {
    const c = local.nodes.get(`e${i}`) ?? { x: 0, y: 0 };
    return { x: c.x - el.width / 2, y: c.y - el.height / 2, width: el.width, height: el.height };
  });
  const placed = placeLabels(routes, boxes);
  return { ...local, edges: local.edges.map((e, k) => (e === undefined ? e : { ...e, label: placed[k] ?? null })) };
}
