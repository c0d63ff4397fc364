/**
 * The far-out picture of a big graph: when the window holds more boxes than the DOM can paint
 * in a frame (a Fit of 50,000 nodes), the graph is painted on a <canvas> under the SVG instead of
 * as elements: open modules and closed boxes as rectangles, edges as polylines, each frame only
 * what is in the view and at least MIN_SCREEN pixels big (found through the window grid). An SVG
 * overview of tens of thousands of pieces cost hundreds of ms per pan or zoom frame in style,
 * layout, hit-testing and paint. Nothing is readable at that zoom; zooming in brings the full
 * drawing back, and exports never contain the canvas.
 */
import type { ZoomTransform } from "d3-zoom";
import type { LayoutResult, Rect } from "../layout/types";
import type { VisibleGraph } from "../model/visible";
import type { Palette } from "./theme";
import { edgeBounds, routesById, viewRect, windowIndex } from "./virtual";

/** Boxes in the window above which it is drawn as an overview. */
export const OVERVIEW_ABOVE = 1500;
/** Boxes and edges smaller than this on screen (px, both sides) are left out: they would not show. */
const MIN_SCREEN = 1.5;

/** How many drawn items of `visible` meet `window`. */
export function itemsIn(visible: VisibleGraph, layout: LayoutResult, window: Rect): number {
  return windowIndex(visible, layout).items(window).length;
}

interface Shown {
  readonly visible: VisibleGraph;
  readonly layout: LayoutResult;
  readonly palette: Palette;
}

/** The overview's canvas, which repaints the view on every move while an overview is shown. */
export class OverviewCanvas {
  readonly canvas: HTMLCanvasElement;
  private shown: Shown | null = null;
  private pending = 0;

  constructor(
    host: HTMLElement,
    before: Element,
    private readonly transform: () => ZoomTransform,
  ) {
    this.canvas = host.ownerDocument.createElement("canvas");
    this.canvas.className = "vista-overview";
    this.canvas.setAttribute("aria-hidden", "true");
    this.canvas.hidden = true;
    host.insertBefore(this.canvas, before);
  }

  /** Whether the last draw asked for the overview. */
  get active(): boolean {
    return this.shown !== null;
  }

  /** Shows the overview of the graph (null: hides it) and paints it now. */
  show(shown: Shown | null): void {
    this.shown = shown;
    this.canvas.hidden = shown === null;
    if (shown === null) {
      this.canvas.width = 0; // frees the backing store
      return;
    }
    this.paint();
  }

  /** The view moved: repainted once per frame. */
  moved(): void {
    if (this.shown === null || this.pending !== 0) return;
    const raf = this.canvas.ownerDocument.defaultView?.requestAnimationFrame;
    if (raf === undefined) {
      this.paint();
      return;
    }
    this.pending = raf(() => {
      this.pending = 0;
      this.paint();
    });
  }

  private paint(): void {
    const shown = this.shown;
    if (shown === null) return;
    const width = this.canvas.clientWidth;
    const height = this.canvas.clientHeight;
    const ratio = this.canvas.ownerDocument.defaultView?.devicePixelRatio ?? 1;
    const w = Math.max(1, Math.round(width * ratio));
    const h = Math.max(1, Math.round(height * ratio));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    const ctx = this.canvas.getContext("2d");
    if (ctx === null) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (width <= 0 || height <= 0) return;
    const t = this.transform();
    const view = viewRect(t, width, height);
    const { visible, layout, palette } = shown;
    const index = windowIndex(visible, layout);
    const min = MIN_SCREEN / t.k;
    const big = (r: Rect): boolean => r.width >= min || r.height >= min;
    ctx.setTransform(ratio * t.k, 0, 0, ratio * t.k, ratio * t.x, ratio * t.y);
    // Hairlines at any zoom: the overview is seen from far out.
    ctx.lineWidth = 1 / t.k;
    const rects = (ids: readonly string[], fill: string, stroke: string): void => {
      ctx.beginPath();
      for (const id of ids) {
        const r = layout.rects[id] as Rect;
        if (big(r)) ctx.rect(r.x, r.y, r.width, r.height);
      }
      ctx.fillStyle = fill;
      ctx.fill();
      ctx.strokeStyle = stroke;
      ctx.stroke();
    };
    rects(index.containers(view), palette.moduleFills[1] ?? palette.background, palette.moduleStroke);
    const routes = routesById(layout.edges);
    ctx.beginPath();
    for (const e of index.edges(view)) {
      const route = routes.get(e.id);
      if (route === undefined || !big(edgeBounds(route))) continue;
      route.points.forEach((p, i) => (i === 0 ? ctx.moveTo(p.x, p.y) : ctx.lineTo(p.x, p.y)));
    }
    ctx.strokeStyle = palette.edge;
    ctx.stroke();
    rects(index.items(view), palette.nodes.box.fill, palette.nodes.box.stroke);
  }
}
