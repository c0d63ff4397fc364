/** Reading Graphviz's `json0` output (rendered with yInvert) into local coordinates. */
import { ALIGN_COMMENT } from "./dot";
import type { Point } from "./types";

export interface GraphvizLayout {
  /** Size of the drawing. */
  readonly width: number;
  readonly height: number;
  /** Centre of each node by name. */
  readonly nodes: ReadonlyMap<string, Point>;
  /** Per edge, indexed by its `comment` (the DOT declaration index): Bézier points and label centre. */
  readonly edges: readonly { readonly points: Point[]; readonly label: Point | null }[];
}

interface Json0Object {
  readonly _gvid: number;
  readonly name: string;
  readonly pos?: string;
}

interface Json0Edge {
  readonly _gvid: number;
  readonly comment?: string;
  readonly pos?: string;
  readonly lp?: string;
}

interface Json0 {
  readonly bb: string;
  readonly objects?: readonly Json0Object[];
  readonly edges?: readonly Json0Edge[];
}

function point(text: string, minX: number, minY: number): Point {
  const [x, y] = text.split(",").map(Number);
  return { x: (x ?? 0) - minX, y: (y ?? 0) - minY };
}

export function parseGraphvizJson(text: string): GraphvizLayout {
  const json = JSON.parse(text) as Json0;
  const [llx = 0, lly = 0, urx = 0, ury = 0] = json.bb.split(",").map(Number);
  const minX = Math.min(llx, urx);
  const minY = Math.min(lly, ury);
  const nodes = new Map<string, Point>();
  for (const o of json.objects ?? []) {
    if (o.pos !== undefined) nodes.set(o.name, point(o.pos, minX, minY));
  }
  const edges: { points: Point[]; label: Point | null }[] = [];
  for (const e of json.edges ?? []) {
    if (e.comment === ALIGN_COMMENT) continue; // invisible, only there to align (see dot.ts)
    const k = Number(e.comment ?? e._gvid);
    const points: Point[] = [];
    for (const token of (e.pos ?? "").split(/\s+/)) {
      if (token === "" || token.startsWith("s,") || token.startsWith("e,")) continue;
      points.push(point(token, minX, minY));
    }
    edges[k] = { points: downward(points), label: e.lp === undefined ? null : point(e.lp, minX, minY) };
  }
  return { width: Math.abs(urx - llx), height: Math.abs(ury - lly), nodes, edges };
}

/**
 * A Bézier chain with each downward cubic's control points kept between its ends' heights, so
 * that it never overshoots them: between two close ranks far apart sideways, Graphviz's reach
 * far above and below, and the curve dipped into the header of the box it enters.
 */
function downward(points: Point[]): Point[] {
  for (let i = 0; i + 3 < points.length; i += 3) {
    const [a, b, c, d] = [points[i] as Point, points[i + 1] as Point, points[i + 2] as Point, points[i + 3] as Point];
    if (d.y <= a.y + 1) continue;
    // A control point beyond the far end moves to mid-height (the curve still leaves and
    // arrives vertically); one just short of its own end is kept there.
    const middle = (a.y + d.y) / 2;
    points[i + 1] = { x: b.x, y: b.y > d.y ? middle : Math.max(b.y, a.y) };
    points[i + 2] = { x: c.x, y: c.y < a.y ? middle : Math.min(c.y, d.y) };
  }
  return points;
}
