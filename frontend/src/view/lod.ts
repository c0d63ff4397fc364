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
  readonly el: SVGTextElement;
}

/** A strong colour for a module class, stable across draws and pages (a hash of its name). */
export function classColor(name: string, theme: ThemeName): string {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  const hue = (h >>> 0) % 360;
  return theme === "dark" ? `hsl(${hue} 60% 62%)` : `hsl(${hue} 62% 44%)`;
}

export class LevelOfDetail {
  private readonly layer: SVGGElement;
  private labels: Label[] = [];
  private level: "near" | "far" = "near";
  private k = 1;
  private drawn: { visible: VisibleGraph; layout: LayoutResult; theme: ThemeName } | null = null;
  private background = "";
  private built = false;

  constructor(private readonly svg: SVGSVGElement) {
    this.layer = svg.ownerDocument.createElementNS(SVG_NS, "g");
    this.layer.setAttribute("class", "vista-layer-lod");
    this.layer.setAttribute("pointer-events", "none");
    this.layer.setAttribute("display", "none");
    svg.appendChild(this.layer);
    svg.dataset["lod"] = "near";
  }

  /** The drawn graph (after every layout and theme change). */
  draw(visible: VisibleGraph, layout: LayoutResult, theme: ThemeName, background: string): void {
    // A redraw of the same graph (a pan that moved the drawn window) changes nothing here.
    const drawn = this.drawn;
    if (drawn !== null && drawn.visible === visible && drawn.layout === layout && drawn.theme === theme) return;
    this.drawn = { visible, layout, theme };
    this.background = background;
    this.built = false;
    this.layer.replaceChildren();
    this.labels = [];
    // Near, nothing of this layer shows: it is built when the view first goes far.
    if (this.level === "far") this.place();
  }

  private build(): void {
    const drawnNow = this.drawn;
    if (drawnNow === null || this.built) return;
    this.built = true;
    const { visible, layout, theme } = drawnNow;
    const background = this.background;
    this.labels = [];
    const doc = this.svg.ownerDocument;
    const outlines = doc.createElementNS(SVG_NS, "g");
    const texts = doc.createElementNS(SVG_NS, "g");
    texts.setAttribute("font-family", "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif");
    texts.setAttribute("font-weight", "700");
    texts.setAttribute("stroke", background);
    texts.setAttribute("paint-order", "stroke");
    texts.setAttribute("stroke-linejoin", "round");
    this.layer.append(outlines, texts);
    const add = (id: string, className: string, open: boolean): void => {
      const rect = layout.rects[id];
      if (rect === undefined) return;
      const color = classColor(className, theme);
      const frame = doc.createElementNS(SVG_NS, "rect");
      frame.setAttribute("x", String(rect.x));
      frame.setAttribute("y", String(rect.y));
      frame.setAttribute("width", String(rect.width));
      frame.setAttribute("height", String(rect.height));
      frame.setAttribute("rx", "8");
      frame.setAttribute("vector-effect", "non-scaling-stroke");
      frame.setAttribute("stroke", color);
      frame.setAttribute("stroke-width", open ? "2" : "1.5");
      frame.setAttribute("fill", open ? "none" : color);
      if (!open) frame.setAttribute("fill-opacity", "0.45");
      outlines.appendChild(frame);
      const el = doc.createElementNS(SVG_NS, "text");
      el.setAttribute("class", "vista-lod-title");
      el.setAttribute("fill", color);
      el.dataset["id"] = id;
      texts.appendChild(el);
      this.labels.push({ rect, open, text: className, el });
    };
    for (const [id, c] of visible.containers) if (c.group === undefined) add(id, c.module.class_name, true);
    for (const [id, item] of visible.items) {
      if (item.type === "box" && item.group === undefined) add(id, item.repeat > 1 ? `${item.module.class_name} ×${item.repeat}` : item.module.class_name, false);
    }
    // Bigger modules first: where titles would overlap, the bigger module's is drawn.
    this.labels.sort((a, b) => b.rect.width * b.rect.height - a.rect.width * a.rect.height);
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

  private place(): void {
    const far = this.level === "far";
    this.layer.setAttribute("display", far ? "inline" : "none");
    if (!far) return;
    this.build();
    const k = this.k;
    const placed: { x0: number; y0: number; x1: number; y1: number }[] = [];
    for (const l of this.labels) {
      const w = l.rect.width * k;
      const h = l.rect.height * k;
      if (w < MIN_WIDTH_PX || h < MIN_HEIGHT_PX) {
        l.el.setAttribute("display", "none");
        continue;
      }
      // A narrow box gets a smaller title (down to MIN_TITLE_PX), then a shortened one.
      const px = Math.max(MIN_TITLE_PX, Math.min(TITLE_PX, (w - 10) / (0.62 * l.text.length)));
      const chars = Math.max(3, Math.floor((w - 10) / (px * 0.62)));
      const text = l.text.length <= chars ? l.text : `${l.text.slice(0, chars - 1)}…`;
      // Where the title goes on the graph, in screen pixels from the box's corner: titles never overlap.
      const tw = text.length * px * 0.62;
      const x0 = l.open ? l.rect.x * k + 6 : (l.rect.x + l.rect.width / 2) * k - tw / 2;
      const y0 = l.open ? l.rect.y * k + 2 : (l.rect.y + l.rect.height / 2) * k - px / 2;
      const box = { x0, y0, x1: x0 + tw, y1: y0 + px + 2 };
      if (placed.some((b) => b.x0 < box.x1 && box.x0 < b.x1 && b.y0 < box.y1 && box.y0 < b.y1)) {
        l.el.setAttribute("display", "none");
        continue;
      }
      placed.push(box);
      l.el.textContent = text;
      l.el.setAttribute("display", "inline");
      l.el.setAttribute("font-size", (px / k).toFixed(2));
      l.el.setAttribute("stroke-width", (3 / k).toFixed(2));
      if (l.open) {
        l.el.setAttribute("x", (l.rect.x + 6 / k).toFixed(1));
        l.el.setAttribute("y", (l.rect.y + (TITLE_PX + 3) / k).toFixed(1));
        l.el.removeAttribute("text-anchor");
      } else {
        l.el.setAttribute("x", (l.rect.x + l.rect.width / 2).toFixed(1));
        l.el.setAttribute("y", (l.rect.y + l.rect.height / 2 + (TITLE_PX * 0.35) / k).toFixed(1));
        l.el.setAttribute("text-anchor", "middle");
      }
    }
  }
}
