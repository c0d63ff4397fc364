/**
 * The overview map of one viewer: the whole laid-out graph drawn small on a canvas in the
 * canvas's bottom-right corner, with the current view drawn on it as a rectangle. A click
 * or a drag on it moves the view there (keeping the zoom). Also the notice Fit shows when the
 * whole graph is too big to read, offering the map. HTML outside the graph's SVG, so exports
 * never contain it.
 */
import type { VisibleGraph } from "../model/visible";
import type { LayoutResult } from "../layout/types";
import type { Frame, Size } from "./frame";
import type { Palette } from "./theme";

/** The largest size of the map on screen, in CSS pixels (its height also leaves the legend free). */
const MAX_WIDTH = 220;
const MAX_HEIGHT = 360;
/**
 * The narrowest the drawn graph gets: a graph much taller than wide is drawn this wide and
 * longer than the map, which then scrolls to keep the view rectangle in it.
 */
const MIN_WIDTH = 110;
/** A small graph gets a small map, not one as big as the graph. */
const MAX_SCALE = 0.2;
/** Browsers refuse canvases taller than about 16k device pixels. */
const MAX_CANVAS = 16000;
/** The view rectangle is never drawn smaller than this (px), so it can always be found. */
const MIN_VIEW = 6;

export interface MinimapInput {
  readonly visible: VisibleGraph;
  readonly layout: LayoutResult;
  readonly depthOf: (id: string) => number;
  readonly palette: Palette;
}

export class Minimap {
  readonly root: HTMLDivElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly view: HTMLDivElement;
  /** Holds the canvas and the view rectangle; moved up inside the map when the graph is longer than it. */
  private readonly strip: HTMLDivElement;
  private boxHeight = MAX_HEIGHT;
  private scroll = 0;
  private dragging = false;
  private readonly notice: HTMLDivElement;
  private input: MinimapInput | null = null;
  private scale = 1;
  private last: { frame: Frame; size: Size } | null = null;

  constructor(
    host: HTMLElement,
    /** Moves the viewer's view so that graph point (x, y) is in its middle. */
    private readonly moveTo: (x: number, y: number) => void,
  ) {
    const doc = host.ownerDocument;
    this.root = doc.createElement("div");
    this.root.className = "vista-minimap";
    this.root.hidden = true;
    this.root.setAttribute("role", "img");
    this.root.setAttribute("aria-label", "Overview map of the whole graph; click or drag to move the view");
    this.canvas = doc.createElement("canvas");
    this.view = doc.createElement("div");
    this.view.className = "vista-minimap-view";
    this.strip = doc.createElement("div");
    this.strip.className = "vista-minimap-strip";
    this.strip.append(this.canvas, this.view);
    this.root.append(this.strip);
    host.appendChild(this.root);

    this.notice = doc.createElement("div");
    this.notice.className = "vista-notice";
    this.notice.hidden = true;
    this.notice.setAttribute("role", "status");
    host.appendChild(this.notice);

    this.root.addEventListener("pointerdown", (event) => {
      if (event.button !== 0) return;
      event.preventDefault();
      event.stopPropagation();
      this.root.setPointerCapture?.(event.pointerId);
      this.moveFrom(event);
      this.dragging = true;
      const move = (e: PointerEvent): void => this.moveFrom(e);
      const up = (): void => {
        this.dragging = false;
        if (this.last !== null) this.follow(this.last.frame, this.last.size);
        this.root.removeEventListener("pointermove", move);
        this.root.removeEventListener("pointerup", up);
        this.root.removeEventListener("pointercancel", up);
      };
      this.root.addEventListener("pointermove", move);
      this.root.addEventListener("pointerup", up);
      this.root.addEventListener("pointercancel", up);
    });
    // The wheel over the map must not zoom the page or the graph under it.
    this.root.addEventListener("wheel", (event) => event.preventDefault(), { passive: false });
  }

  get shown(): boolean {
    return !this.root.hidden;
  }

  setShown(shown: boolean): void {
    this.root.hidden = !shown;
    if (shown) this.hideNotice();
    this.paint();
    if (this.last !== null) this.follow(this.last.frame, this.last.size);
  }

  /** The graph to draw (after every layout and theme change). */
  draw(input: MinimapInput): void {
    // A redraw of the same graph (a pan that moved the drawn window) changes nothing here.
    const was = this.input;
    if (was !== null && was.visible === input.visible && was.layout === input.layout && was.palette === input.palette) return;
    this.input = input;
    this.paint();
    if (this.last !== null) this.follow(this.last.frame, this.last.size);
  }

  /** Moves the view rectangle to the viewer's view `frame` over a graph area of `size`. */
  follow(frame: Frame, size: Size): void {
    this.last = { frame, size };
    if (this.root.hidden || this.input === null) return;
    const s = this.scale;
    const w = this.canvas.clientWidth || MAX_WIDTH;
    const h = this.canvas.clientHeight || MAX_HEIGHT;
    let left = (-frame.x / frame.k) * s;
    let top = (-frame.y / frame.k) * s;
    let width = (size.width / frame.k) * s;
    let height = (size.height / frame.k) * s;
    if (width < MIN_VIEW) {
      left -= (MIN_VIEW - width) / 2;
      width = MIN_VIEW;
    }
    if (height < MIN_VIEW) {
      top -= (MIN_VIEW - height) / 2;
      height = MIN_VIEW;
    }
    // Clipped to the map, so a view bigger than the graph is drawn as the map's edge.
    const x0 = Math.max(0, left);
    const y0 = Math.max(0, top);
    const x1 = Math.min(w, left + width);
    const y1 = Math.min(h, top + height);
    // A drawn graph longer than the map scrolls just enough to keep the view rectangle in it;
    // not during a drag, where the map moving under the pointer would move the view again.
    if (!this.dragging) {
      let scroll = this.scroll;
      if (y0 < scroll) scroll = y0 - 8;
      else if (y1 > scroll + this.boxHeight) scroll = y1 + 8 - this.boxHeight;
      this.scroll = Math.max(0, Math.min(h - this.boxHeight, scroll));
      this.strip.style.transform = this.scroll > 0 ? `translateY(${-this.scroll}px)` : "";
    }
    const style = this.view.style;
    style.left = `${x0}px`;
    style.top = `${y0}px`;
    style.width = `${Math.max(0, x1 - x0)}px`;
    style.height = `${Math.max(0, y1 - y0)}px`;
    this.view.hidden = x1 <= x0 || y1 <= y0;
  }

  /** Tells the user that Fit made the graph too small to read, offering the map. */
  offer(): void {
    if (this.shown) return;
    this.notice.replaceChildren();
    const text = this.notice.ownerDocument.createElement("span");
    text.textContent = "The whole graph is too big to read at this size.";
    const show = this.notice.ownerDocument.createElement("button");
    show.type = "button";
    show.dataset["action"] = "show-minimap";
    show.textContent = "Show the overview map";
    show.addEventListener("click", () => this.setShown(true));
    const close = this.notice.ownerDocument.createElement("button");
    close.type = "button";
    close.textContent = "×";
    close.title = "Dismiss";
    close.setAttribute("aria-label", "Dismiss");
    close.addEventListener("click", () => this.hideNotice());
    this.notice.append(text, show, close);
    this.notice.hidden = false;
  }

  hideNotice(): void {
    this.notice.hidden = true;
  }

  private moveFrom(event: PointerEvent): void {
    const r = this.canvas.getBoundingClientRect();
    if (this.scale <= 0) return;
    this.moveTo((event.clientX - r.left) / this.scale, (event.clientY - r.top) / this.scale);
  }

  private paint(): void {
    const input = this.input;
    if (input === null || this.root.hidden) return;
    const { layout, visible, palette } = input;
    const gw = Math.max(1, layout.width);
    const gh = Math.max(1, layout.height);
    const ratio = this.canvas.ownerDocument.defaultView?.devicePixelRatio ?? 1;
    const room = this.root.parentElement?.clientHeight ?? 0;
    this.boxHeight = Math.max(80, Math.min(MAX_HEIGHT, room > 0 ? room - 70 : MAX_HEIGHT));
    let s = Math.min(MAX_SCALE, MAX_WIDTH / gw, this.boxHeight / gh);
    if (gw * s < MIN_WIDTH && s < MAX_SCALE) s = Math.min(MAX_SCALE, MIN_WIDTH / gw, MAX_CANVAS / (ratio * gh));
    this.scale = s;
    const w = Math.max(4, Math.round(gw * s));
    const h = Math.max(4, Math.round(gh * s));
    this.root.style.height = `${Math.min(h, this.boxHeight) + 6}px`;
    this.canvas.width = Math.round(w * ratio);
    this.canvas.height = Math.round(h * ratio);
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    const ctx = this.canvas.getContext("2d");
    if (ctx === null) return;
    ctx.setTransform(ratio * s, 0, 0, ratio * s, 0, 0);
    ctx.fillStyle = palette.background;
    ctx.fillRect(0, 0, gw, gh);
    const containers = [...visible.containers.keys()].sort((a, b) => input.depthOf(a) - input.depthOf(b));
    ctx.lineWidth = 1 / s;
    for (const id of containers) {
      const r = layout.rects[id];
      if (r === undefined) continue;
      const fills = palette.moduleFills;
      ctx.fillStyle = fills[input.depthOf(id) % fills.length] ?? palette.background;
      ctx.fillRect(r.x, r.y, r.width, r.height);
      ctx.strokeStyle = palette.moduleStroke;
      ctx.strokeRect(r.x, r.y, r.width, r.height);
    }
    for (const [id, item] of visible.items) {
      const r = layout.rects[id];
      if (r === undefined) continue;
      const shape = item.type === "box" ? "box" : item.failed ? "error" : item.node.kind;
      const colors = palette.nodes[shape];
      // At this scale a node's fill is too pale to see: it is drawn in its outline colour.
      ctx.fillStyle = colors.stroke;
      ctx.fillRect(r.x, r.y, Math.max(r.width, 1.5 / s), Math.max(r.height, 1.5 / s));
    }
  }
}
