/**
 * Tall elements laid out short, then stretched back.
 *
 * Graphviz's time grows with the height of the boxes it routes edges beside: the container of a
 * 714-layer Llama's 8 segments (boxes 5,000 points tall, with the edges that every layer reads
 * running down beside them) took 0.6-0.9 s, and the same DOT with 72-point boxes about 0.05 s;
 * it ran again on every click in the model. A container of segments is therefore laid out with
 * its elements at most TALL_HEIGHT high and its drawing stretched back: each rank's band of
 * boxes to the boxes' real height, everything below it moved down by the difference. Elements
 * keep their widths and ranks, so nothing overlaps that did not in the short layout.
 */
import type { LocalElement } from "./dot";
import type { GraphvizLayout } from "./graphviz";
import type { Point } from "./types";

/** The height (points) above which an element of a container of segments is laid out short. */
export const TALL_HEIGHT = 72;

/** The elements as Graphviz gets them (tall ones short), or null when none is tall. */
export function shortened(elements: readonly LocalElement[]): LocalElement[] | null {
  if (elements.every((e) => e.height <= TALL_HEIGHT)) return null;
  return elements.map((e) => (e.height <= TALL_HEIGHT ? e : { ...e, height: TALL_HEIGHT }));
}

interface Band {
  readonly top: number;
  readonly bottom: number;
  /** Its real height: that of its elements. */
  readonly height: number;
}

/**
 * The layout of `elements` from Graphviz's layout of `short` (their shortened copies); null
 * when it cannot be stretched (boxes of different real heights sharing a rank), and the caller
 * lays the real heights out instead.
 */
export function stretched(layout: GraphvizLayout, elements: readonly LocalElement[], short: readonly LocalElement[]): GraphvizLayout | null {
  const byRank = new Map<number, { top: number; bottom: number; height: number }>();
  for (let i = 0; i < elements.length; i++) {
    const at = layout.nodes.get(`e${i}`);
    if (at === undefined) return null;
    const key = Math.round(at.y * 10);
    const half = (short[i] as LocalElement).height / 2;
    const real = (elements[i] as LocalElement).height;
    const band = byRank.get(key);
    if (band === undefined) byRank.set(key, { top: at.y - half, bottom: at.y + half, height: real });
    else if (band.height !== real || band.bottom - band.top !== 2 * half) return null;
  }
  const bands: Band[] = [...byRank.values()].sort((a, b) => a.top - b.top);
  for (let k = 1; k < bands.length; k++) if ((bands[k] as Band).top < (bands[k - 1] as Band).bottom - 0.5) return null;
  // shift[k]: how far everything from band k's top down moves before band k itself stretches.
  const shift: number[] = [0];
  for (const b of bands) shift.push((shift[shift.length - 1] as number) + b.height - (b.bottom - b.top));
  const y = (v: number): number => {
    let lo = 0;
    let hi = bands.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((bands[mid] as Band).bottom <= v) lo = mid + 1;
      else hi = mid;
    }
    // Bands 0..lo-1 lie above v; band lo (if any) may hold it.
    const b = bands[lo];
    const before = shift[lo] as number;
    if (b !== undefined && v >= b.top) return b.top + before + ((v - b.top) * b.height) / (b.bottom - b.top);
    return v + before;
  };
  const move = (p: Point): Point => ({ x: p.x, y: y(p.y) });
  const nodes = new Map<string, Point>();
  for (const [name, at] of layout.nodes) nodes.set(name, move(at));
  const edges = layout.edges.map((e) => (e === undefined ? e : { points: e.points.map(move), label: e.label === null ? null : move(e.label) }));
  return { width: layout.width, height: layout.height + (shift[bands.length] as number), nodes, edges };
}
