/**
 * A uniform grid over a layout's rectangles, so that the windowed drawing asks "what meets this
 * rectangle" in time proportional to the answer instead of the graph: with 100,000 drawn boxes a
 * pass over every one of them on each pan or zoom frame was what made those frames long.
 */
import type { Rect } from "../layout/types";

/** About this many entries per grid cell. */
const PER_CELL = 4;
/** Fewest and most cells of a grid. */
const MAX_CELLS = 1 << 18;
/** An entry spanning more cells than this (an outer module's frame) is kept in a list of its own. */
const MAX_SPAN = 64;

export class GridIndex {
  private readonly x0: number;
  private readonly y0: number;
  private readonly cell: number;
  private readonly cols: number;
  private readonly rows: number;
  /** Entries of cell c are entries[starts[c] .. starts[c + 1]). */
  private readonly starts: Int32Array;
  private readonly entries: Int32Array;
  /** Entries spanning many cells, checked on every query. */
  private readonly big: number[] = [];
  private readonly seen: Uint32Array;
  private stamp = 0;

  constructor(private readonly rects: readonly (Rect | undefined)[]) {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const r of rects) {
      if (r === undefined) continue;
      x0 = Math.min(x0, r.x);
      y0 = Math.min(y0, r.y);
      x1 = Math.max(x1, r.x + r.width);
      y1 = Math.max(y1, r.y + r.height);
    }
    if (!(x1 >= x0 && y1 >= y0)) [x0, y0, x1, y1] = [0, 0, 1, 1];
    const width = Math.max(1, x1 - x0);
    const height = Math.max(1, y1 - y0);
    const cells = Math.min(MAX_CELLS, Math.max(1, Math.ceil(rects.length / PER_CELL)));
    const cell = Math.max(Math.sqrt((width * height) / cells), width / 4096, height / 4096, 1e-6);
    this.x0 = x0;
    this.y0 = y0;
    this.cell = cell;
    this.cols = Math.max(1, Math.ceil(width / cell));
    this.rows = Math.max(1, Math.ceil(height / cell));
    this.seen = new Uint32Array(rects.length);
    const counts = new Int32Array(this.cols * this.rows + 1);
    const spans: (readonly [number, number, number, number] | null)[] = rects.map((r, i) => {
      if (r === undefined) return null;
      const s = this.span(r);
      if ((s[2] - s[0] + 1) * (s[3] - s[1] + 1) > MAX_SPAN) {
        this.big.push(i);
        return null;
      }
      for (let row = s[1]; row <= s[3]; row++) for (let col = s[0]; col <= s[2]; col++) counts[row * this.cols + col + 1] = (counts[row * this.cols + col + 1] as number) + 1;
      return s;
    });
    for (let c = 1; c < counts.length; c++) counts[c] = (counts[c] as number) + (counts[c - 1] as number);
    this.starts = counts;
    this.entries = new Int32Array(counts[counts.length - 1] as number);
    const fill = counts.slice(0, -1);
    spans.forEach((s, i) => {
      if (s === null) return;
      for (let row = s[1]; row <= s[3]; row++) {
        for (let col = s[0]; col <= s[2]; col++) {
          const c = row * this.cols + col;
          this.entries[(fill[c] as number)++] = i;
        }
      }
    });
  }

  /** The cells a rectangle covers, clamped to the grid: [col0, row0, col1, row1]. */
  private span(r: Rect): [number, number, number, number] {
    const clampCol = (v: number): number => Math.min(this.cols - 1, Math.max(0, Math.floor((v - this.x0) / this.cell)));
    const clampRow = (v: number): number => Math.min(this.rows - 1, Math.max(0, Math.floor((v - this.y0) / this.cell)));
    return [clampCol(r.x), clampRow(r.y), clampCol(r.x + r.width), clampRow(r.y + r.height)];
  }

  /** Indices (ascending) of the rectangles that meet `window`. */
  query(window: Rect): number[] {
    const out: number[] = [];
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const stamp = this.stamp;
    const meets = (i: number): boolean => {
      const r = this.rects[i] as Rect;
      return r.x <= window.x + window.width && window.x <= r.x + r.width && r.y <= window.y + window.height && window.y <= r.y + r.height;
    };
    const [c0, r0, c1, r1] = this.span(window);
    for (let row = r0; row <= r1; row++) {
      for (let c = row * this.cols + c0, end = row * this.cols + c1; c <= end; c++) {
        for (let k = this.starts[c] as number, stop = this.starts[c + 1] as number; k < stop; k++) {
          const i = this.entries[k] as number;
          if (this.seen[i] === stamp) continue;
          this.seen[i] = stamp;
          if (meets(i)) out.push(i);
        }
      }
    }
    for (const i of this.big) if (meets(i)) out.push(i);
    return out.sort((a, b) => a - b);
  }
}
