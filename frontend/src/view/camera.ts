/**
 * The camera of one viewer: d3-zoom on its SVG, the view's size (kept by a ResizeObserver),
 * and the views the viewer chooses itself (fit, overview, centre on a box, keep a box where
 * it was on screen). Knows the graph only by its size and the rectangles it is given.
 */
import { select } from "d3-selection";
import { zoom, zoomIdentity, type ZoomBehavior, type ZoomTransform } from "d3-zoom";
import type { Rect } from "../layout/types";
import { focusFrame, topFrame, type Frame, type Size } from "./frame";

/** Height kept free under a fitted graph for the legend (bottom-left, over the canvas). */
const LEGEND_SPACE = 30;
/**
 * Height kept free above a graph fitted below UNREADABLE_SCALE for the notice that says so (at
 * the top, over the canvas): a tall graph is a column in the middle of the view, right under it.
 */
const NOTICE_SPACE = 56;
/**
 * The smallest zoom of a view the viewer chooses itself (the first view, Expand all, depth
 * changes, search jumps): node labels are 11-12px, so they stay at least ~9px on screen. Only
 * Fit and the zoom buttons/wheel go below it.
 */
export const READABLE_SCALE = 0.8;
/** Below this zoom node labels are under ~3px on screen: Fit says so and offers the overview map. */
export const UNREADABLE_SCALE = 0.25;

/** Where a box was on screen, to keep it there across a relayout. */
export interface Anchor {
  readonly id: string;
  readonly screenX: number;
  readonly screenY: number;
}

export class Camera {
  private readonly behavior: ZoomBehavior<SVGSVGElement, unknown>;
  private size: { width: number; height: number } | null = null;
  private graph = { width: 1, height: 1 };
  /** Called when the user (wheel, drag, the zoom buttons) moved the view; set by views that move viewers together. */
  onUserMove: ((before: ZoomTransform, after: ZoomTransform) => void) | null = null;
  private userZoom = false;
  /** Whether the view now shown is one the user moved to, not one the viewer chose. */
  userMoved = false;
  /** Called after every change of the view, whoever made it (the minimap follows it). */
  private readonly watchers: ((t: ZoomTransform) => void)[] = [];
  private before: ZoomTransform = zoomIdentity;

  constructor(
    private readonly svg: SVGSVGElement,
    viewport: SVGGElement,
    cleanups: (() => void)[],
  ) {
    this.behavior = zoom<SVGSVGElement, unknown>()
      .scaleExtent([0.01, 4])
      .extent(() => {
        const { width, height } = this.viewSize();
        return [
          [0, 0],
          [width, height],
        ];
      })
      .on("start", () => {
        this.before = this.transform();
      })
      .on("zoom", (event: { transform: ZoomTransform; sourceEvent: unknown }) => {
        viewport.setAttribute("transform", event.transform.toString());
        const user = event.sourceEvent !== null && event.sourceEvent !== undefined;
        if ((user || this.userZoom) && this.onUserMove !== null) this.onUserMove(this.before, event.transform);
        this.userMoved = user || this.userZoom;
        this.before = event.transform;
        for (const w of this.watchers) w(event.transform);
      });
    select(svg).call(this.behavior).on("dblclick.zoom", null);
    if (typeof ResizeObserver !== "undefined") {
      const observer = new ResizeObserver((entries) => {
        const box = entries[entries.length - 1]?.contentRect;
        if (box !== undefined && box.width > 0 && box.height > 0) this.size = { width: box.width, height: box.height };
      });
      observer.observe(svg);
      cleanups.push(() => observer.disconnect());
    }
    cleanups.push(() => select(svg).on(".zoom", null));
  }

  /** Calls `fn` after every change of the view. */
  watch(fn: (t: ZoomTransform) => void): void {
    this.watchers.push(fn);
  }

  /** Moves the view (keeping the zoom) so that graph point (gx, gy) is in the middle; a move by the user. */
  centerAt(gx: number, gy: number): void {
    const { width, height } = this.viewSize();
    const k = this.transform().k;
    this.userZoom = true;
    try {
      this.setTransform(zoomIdentity.translate(width / 2 - k * gx, height / 2 - k * gy).scale(k));
    } finally {
      this.userZoom = false;
    }
  }

  /** The size of the graph now drawn (its layout's). */
  setGraphSize(width: number, height: number): void {
    this.graph = { width: Math.max(1, width), height: Math.max(1, height) };
  }

  transform(): ZoomTransform {
    // d3-zoom keeps the current transform on the element as `__zoom`.
    const t = (this.svg as unknown as { __zoom?: ZoomTransform }).__zoom;
    return t ?? zoomIdentity;
  }

  zoomBy(factor: number): void {
    this.userZoom = true;
    try {
      select(this.svg).call(this.behavior.scaleBy, factor);
    } finally {
      this.userZoom = false;
    }
  }

  /** Where the top-left corner of `rect` (graph coordinates) is on screen, as an anchor for `id`. */
  anchorOf(id: string, rect: Rect): Anchor {
    const t = this.transform();
    return { id, screenX: t.applyX(rect.x), screenY: t.applyY(rect.y) };
  }

  /** Keeps the zoom and moves the graph so that `rect`'s corner is where the anchor says. */
  keepAt(anchor: Anchor, rect: Rect): void {
    const k = this.transform().k;
    this.setTransform(zoomIdentity.translate(anchor.screenX - k * rect.x, anchor.screenY - k * rect.y).scale(k));
  }

  /** The zoom at which Fit shows the whole graph. */
  fitScale(): number {
    const { width, free, top } = this.fitArea();
    return this.scaleFor(width, free - top);
  }

  fit(): void {
    const { width, free, top } = this.fitArea();
    const k = this.scaleFor(width, free - top);
    const { width: w, height: h } = this.graph;
    this.setTransform(zoomIdentity.translate((width - k * w) / 2, top + (free - top - k * h) / 2).scale(k));
  }

  private scaleFor(width: number, height: number): number {
    return Math.min(1.25, (0.94 * width) / this.graph.width, (0.94 * height) / this.graph.height);
  }

  /**
   * The whole graph when it fits at a readable scale; otherwise its top at a readable scale,
   * around `anchor` (where the graph starts) and the drawn items `leaves` near it, with the
   * titles of the open modules `modules` it would cut (see topFrame). Fit shows all of it.
   */
  overview(leaves: readonly Rect[], anchor: Rect | null, modules: readonly Rect[] = []): void {
    if (this.fitScale() >= READABLE_SCALE) {
      this.fit();
      return;
    }
    const { width } = this.viewSize();
    const k = Math.max(READABLE_SCALE, Math.min(1, (0.94 * width) / this.graph.width));
    this.apply(topFrame(leaves, anchor, this.graph, this.viewSize(), k, modules));
  }

  /**
   * `rect` in view, as close as the whole graph allows, but never unreadably far or closer
   * than 1:1: centred when it fits, else its header and top (see focusFrame).
   */
  centerOn(rect: Rect, leaves: readonly Rect[] = []): void {
    const { width, height } = this.viewSize();
    const { width: w, height: h } = this.graph;
    const fitK = Math.min((0.94 * width) / w, (0.94 * height) / h);
    const k = Math.min(1, Math.max(READABLE_SCALE, fitK, this.transform().k));
    this.apply(focusFrame(rect, this.viewSize(), k, leaves));
  }

  /** The current transform as a Frame. */
  frame(): Frame {
    const t = this.transform();
    return { x: t.x, y: t.y, k: t.k };
  }

  apply(frame: Frame): void {
    this.setTransform(zoomIdentity.translate(frame.x, frame.y).scale(frame.k));
  }

  /** The graph area's size on screen. */
  view(): Size {
    return this.viewSize();
  }

  setTransform(t: ZoomTransform): void {
    select(this.svg).call(this.behavior.transform, t);
  }

  /** The graph area changed size just now (the details panel opened): measure it on next use. */
  remeasure(): void {
    this.size = null;
  }

  /** The graph area's size, kept by a ResizeObserver: reading it never forces a reflow. */
  private viewSize(): { width: number; height: number } {
    if (this.size === null) {
      const r = this.svg.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) this.size = { width: r.width, height: r.height };
      return { width: r.width || 800, height: r.height || 500 };
    }
    return this.size;
  }

  /**
   * The area a fitted graph uses: the view minus the strip kept for the legend, which floats over
   * the bottom-left corner, and, when the fit is too small to read, the strip of the notice at the
   * top (from `top` down to `free`).
   */
  private fitArea(): { width: number; height: number; free: number; top: number } {
    const { width, height } = this.viewSize();
    const free = Math.max(height / 2, height - LEGEND_SPACE);
    const top = this.scaleFor(width, free) < UNREADABLE_SCALE ? Math.min(NOTICE_SPACE, free / 4) : 0;
    return { width, height, free, top };
  }
}
