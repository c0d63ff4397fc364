/**
 * Level of detail when zoomed out: below FAR_SCALE the graph's own labels are too small to
 * read, so they are hidden (a CSS rule keyed on the SVG's `data-lod`) and a layer of its own
 * draws each module's class name at a legible size on screen, with its outline (open modules)
 * or fill (closed boxes) in a strong colour of its class, so modules can be told apart. The
 * layer is outside the viewport group, so exports never contain it.
 */
import type { VisibleGraph } from "../model/visible";
import type { LayoutResult, Rect } from "../layout/types";
import type { Frame } from "./frame";
import type { ThemeName } from "./theme";
import { FONT_FAMILY } from "./measure";

/** Below this zoom node labels (11-12px) are under 6px on screen: the far level starts. */
export const FAR_SCALE = 0.5;
/** Size of a module title on screen at the far level, in CSS pixels. */
const TITLE_PX = 13;
/** A title is drawn only in a box at least this big on screen, so titles never pile up. */
const MIN_WIDTH_PX = 34;
const MIN_TITLE_PX = 9;
const MIN_HEIGHT_PX = 16;

const SVG_NS = "http://www.w3.org/2000/svg";

interface Label {
  readonly rect: Rect;
  readonly open: boolean;
  readonly text: string;
  readonly color: string;
  readonly area: number;
  /** The longer side: an outline is drawn when it is at least MIN_OUTLINE_PX on screen. */
  readonly side: number;
  /** The outline as a path segment, made once per layout (not on every zoom step). */
  readonly segment: string;
}

/** Every module's label twice sorted: by area for titles (biggest wins), by longer side for outlines. */
interface Labels {
  readonly byArea: readonly Label[];
  readonly bySide: readonly Label[];
}

/** Outlines smaller than this on screen (px, both sides; up to twice it, see placeOutlines) are left out: they would not show. */
const MIN_OUTLINE_PX = 1.5;
/** Side of the screen-pixel cells the overlap test of titles files them under. */
const CELL_PX = 96;

/** A strong colour for a module class, stable across draws and pages (a hash of its name). */
export function classColor(name: string, theme: ThemeName): string {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  const hue = (h >>> 0) % 360;
  return theme === "dark" ? `hsl(${hue} 60% 62%)` : `hsl(${hue} 62% 44%)`;
}

/**
 * Kept small at any size of graph: the outlines are one path per class colour (not an element per
 * module, which at 100,000 nodes made every far frame repaint tens of thousands of them), and a
 * title element exists only for a title placed; both only for what meets the drawn window.
 */
export class LevelOfDetail {
  private readonly layer: SVGGElement;
  private readonly outlines: SVGGElement;
  private readonly texts: SVGGElement;
  /** Every module's label; built when the view first goes far. */
  private labels: Labels | null = null;
  /** What the outlines now drawn were made for: how many labels of bySide were big enough, in which window. */
  private outlined: { count: number; window: Rect | null } | null = null;
  private level: "near" | "far" = "near";
  private k = 1;
  private drawn: { visible: VisibleGraph; layout: LayoutResult; theme: ThemeName } | null = null;
  /** The window the graph is drawn for (null: all of it); labels outside it are not placed. */
  private window: Rect | null = null;

  constructor(private readonly svg: SVGSVGElement) {
    const doc = svg.ownerDocument;
    this.layer = doc.createElementNS(SVG_NS, "g");
    this.layer.setAttribute("class", "vista-layer-lod");
    this.layer.setAttribute("pointer-events", "none");
    this.layer.setAttribute("display", "none");
    this.outlines = doc.createElementNS(SVG_NS, "g");
    this.texts = doc.createElementNS(SVG_NS, "g");
    this.texts.setAttribute("font-family", FONT_FAMILY);
    this.texts.setAttribute("font-weight", "700");
    this.texts.setAttribute("paint-order", "stroke");
    this.texts.setAttribute("stroke-linejoin", "round");
    this.layer.append(this.outlines, this.texts);
    svg.appendChild(this.layer);
    svg.dataset["lod"] = "near";
  }

  /** The drawn graph (after every layout and theme change, and when the drawn window moves). */
  draw(visible: VisibleGraph, layout: LayoutResult, theme: ThemeName, background: string, window: Rect | null = null): void {
    const drawn = this.drawn;
    const same = drawn !== null && drawn.visible === visible && drawn.layout === layout && drawn.theme === theme;
    if (same && sameRect(this.window, window)) return;
    this.window = window;
    if (!same) {
      this.drawn = { visible, layout, theme };
      this.texts.setAttribute("stroke", background);
      this.labels = null;
      this.outlined = null;
    }
    // Near, nothing of this layer shows: it is placed when the view goes far.
    if (this.level === "far") this.place();
    else this.clear();
  }

  private build(): Labels {
    if (this.labels !== null) return this.labels;
    const labels: Label[] = [];
    const drawn = this.drawn;
    if (drawn === null) return (this.labels = { byArea: labels, bySide: labels });
    const { visible, layout, theme } = drawn;
    const add = (id: string, text: string, open: boolean): void => {
      const r = layout.rects[id];
      if (r === undefined) return;
      const segment = `M${r.x.toFixed(1)},${r.y.toFixed(1)}h${r.width.toFixed(1)}v${r.height.toFixed(1)}h${(-r.width).toFixed(1)}Z`;
      labels.push({ rect: r, open, text, color: classColor(text, theme), area: r.width * r.height, side: Math.max(r.width, r.height), segment });
    };
    for (const [id, c] of visible.containers) if (c.group === undefined) add(id, c.module.class_name, true);
    for (const [id, item] of visible.items) {
      if (item.type === "box" && item.group === undefined) add(id, item.repeat > 1 ? `${item.module.class_name} ×${item.repeat}` : item.module.class_name, false);
    }
    // Bigger modules first: where titles would overlap, the bigger module's is drawn.
    const byArea = [...labels].sort((a, b) => b.area - a.area);
    const bySide = labels.sort((a, b) => b.side - a.side);
    return (this.labels = { byArea, bySide });
  }

  /** Follows the view: switches level at FAR_SCALE and keeps the titles' size on screen. */
  follow(frame: Frame): void {
    this.layer.setAttribute("transform", `translate(${frame.x},${frame.y}) scale(${frame.k})`);
    const changed = Math.abs(Math.log(frame.k / this.k)) > 0.08;
    const level = frame.k < FAR_SCALE ? "far" : "near";
    if (level !== this.level || (level === "far" && changed)) {
      this.k = frame.k;
      this.level = level;
      this.svg.dataset["lod"] = level;
      this.place();
    }
  }

  private clear(): void {
    this.outlined = null;
    this.outlines.replaceChildren();
    this.texts.replaceChildren();
  }

  private place(): void {
    const far = this.level === "far";
    this.layer.setAttribute("display", far ? "inline" : "none");
    if (!far) {
      this.clear();
      return;
    }
    const labels = this.build();
    this.placeOutlines(labels.bySide);
    this.placeTitles(labels.byArea);
  }

  /**
   * One path per class colour of the outlines at least MIN_OUTLINE_PX on screen: a prefix of
   * bySide, so a zoom step that admits no new outline leaves the paths as they are.
   */
  private placeOutlines(bySide: readonly Label[]): void {
    // The zoom rounded down to a power of two: the set of outlines changes every few wheel steps, not every one.
    const minOutline = MIN_OUTLINE_PX / 2 ** Math.floor(Math.log2(this.k));
    let lo = 0;
    let hi = bySide.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((bySide[mid] as Label).side >= minOutline) lo = mid + 1;
      else hi = mid;
    }
    const window = this.window;
    const last = this.outlined;
    if (last !== null && last.count === lo && sameRect(last.window, window)) return;
    this.outlined = { count: lo, window };
    const outlines = new Map<string, string[]>();
    for (let i = 0; i < lo; i++) {
      const l = bySide[i] as Label;
      if (window !== null && !meets(l.rect, window)) continue;
      const key = `${l.open ? "o" : "c"}${l.color}`;
      let d = outlines.get(key);
      if (d === undefined) outlines.set(key, (d = []));
      d.push(l.segment);
    }
    const doc = this.svg.ownerDocument;
    const paths: SVGPathElement[] = [];
    for (const [key, d] of outlines) {
      const open = key.startsWith("o");
      const color = key.slice(1);
      const el = doc.createElementNS(SVG_NS, "path");
      el.setAttribute("class", "vista-lod-outline");
      el.setAttribute("d", d.join(""));
      el.setAttribute("vector-effect", "non-scaling-stroke");
      el.setAttribute("stroke", color);
      el.setAttribute("stroke-width", open ? "2" : "1.5");
      el.setAttribute("fill", open ? "none" : color);
      if (!open) el.setAttribute("fill-opacity", "0.45");
      paths.push(el);
    }
    this.outlines.replaceChildren(...paths);
  }

  /** The titles that fit their box on screen and overlap no bigger module's title. */
  private placeTitles(byArea: readonly Label[]): void {
    const k = this.k;
    const window = this.window;
    const titles: { label: Label; text: string; px: number }[] = [];
    const taken = new Map<number, { x0: number; y0: number; x1: number; y1: number }[]>();
    // A title needs a box of MIN_WIDTH_PX by MIN_HEIGHT_PX on screen: no smaller area after this one has it.
    const minArea = (MIN_WIDTH_PX * MIN_HEIGHT_PX) / (k * k);
    for (const l of byArea) {
      if (l.area < minArea) break;
      const r = l.rect;
      if (window !== null && !meets(r, window)) continue;
      const w = r.width * k;
      const h = r.height * k;
      if (w < MIN_WIDTH_PX || h < MIN_HEIGHT_PX) continue;
      // A narrow box gets a smaller title (down to MIN_TITLE_PX), then a shortened one.
      const px = Math.max(MIN_TITLE_PX, Math.min(TITLE_PX, (w - 10) / (0.62 * l.text.length)));
      const chars = Math.max(3, Math.floor((w - 10) / (px * 0.62)));
      const text = l.text.length <= chars ? l.text : `${l.text.slice(0, chars - 1)}…`;
      // Where the title goes on the graph, in screen pixels from the box's corner: titles never overlap.
      const tw = text.length * px * 0.62;
      const x0 = l.open ? r.x * k + 6 : (r.x + r.width / 2) * k - tw / 2;
      const y0 = l.open ? r.y * k + 2 : (r.y + r.height / 2) * k - px / 2;
      const box = { x0, y0, x1: x0 + tw, y1: y0 + px + 2 };
      const cells: number[] = [];
      for (let cy = Math.floor(box.y0 / CELL_PX); cy <= Math.floor(box.y1 / CELL_PX); cy++) {
        for (let cx = Math.floor(box.x0 / CELL_PX); cx <= Math.floor(box.x1 / CELL_PX); cx++) cells.push(cy * 1e7 + cx);
      }
      if (cells.some((c) => (taken.get(c) ?? []).some((b) => b.x0 < box.x1 && box.x0 < b.x1 && b.y0 < box.y1 && box.y0 < b.y1))) continue;
      for (const c of cells) {
        const list = taken.get(c);
        if (list === undefined) taken.set(c, [box]);
        else list.push(box);
      }
      titles.push({ label: l, text, px });
    }
    const doc = this.svg.ownerDocument;
    const texts: SVGTextElement[] = [];
    for (const { label: l, text, px } of titles) {
      const el = doc.createElementNS(SVG_NS, "text");
      el.setAttribute("class", "vista-lod-title");
      el.setAttribute("fill", l.color);
      el.setAttribute("font-size", (px / k).toFixed(2));
      el.setAttribute("stroke-width", (3 / k).toFixed(2));
      if (l.open) {
        el.setAttribute("x", (l.rect.x + 6 / k).toFixed(1));
        el.setAttribute("y", (l.rect.y + (TITLE_PX + 3) / k).toFixed(1));
      } else {
        el.setAttribute("x", (l.rect.x + l.rect.width / 2).toFixed(1));
        el.setAttribute("y", (l.rect.y + l.rect.height / 2 + (TITLE_PX * 0.35) / k).toFixed(1));
        el.setAttribute("text-anchor", "middle");
      }
      el.textContent = text;
      texts.push(el);
    }
    this.texts.replaceChildren(...texts);
  }
}

/** Whether `r` meets `window` (edges touching count). */
function meets(r: Rect, window: Rect): boolean {
  return r.x <= window.x + window.width && window.x <= r.x + r.width && r.y <= window.y + window.height && window.y <= r.y + r.height;
}

function sameRect(a: Rect | null, b: Rect | null): boolean {
  if (a === null || b === null) return a === b;
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;
}
