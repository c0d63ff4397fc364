/**
 * Drawing only what is in or near the view (SVG virtualization) for big graphs: tens of
 * thousands of drawn boxes made every pan and zoom frame take seconds and the renderer grow
 * past a gigabyte. The renderer is given a window (graph coordinates): the view plus a margin
 * on every side; items, open modules and edges outside it are not in the DOM. A watcher on the
 * viewport's transform asks for a redraw when the view leaves the window. Small graphs are
 * drawn whole, as before, and exports always draw everything (see Viewer.exportSource).
 */
import type { ZoomTransform } from "d3-zoom";
import type { EdgeRoute, LayoutResult, Rect } from "../layout/types";
import type { VisibleEdge, VisibleGraph } from "../model/visible";
import { GridIndex } from "./spatial";

/** Drawn items above which a graph is drawn by window (below, whole: a fully open 72-layer Llama paints in time). */
export const VIRTUAL_ABOVE = 6000;
/** Margin of the window on each side, in view sizes: a pan of up to one view redraws nothing. */
const MARGIN = 1;
/** A window this many times the view's area (the view's own is 9) is redrawn for the view. */
const ZOOMED_IN = 36;

export function intersects(a: Rect, b: Rect): boolean {
  return a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height;
}

/** Whether `inner` lies within `outer`. */
export function contains(outer: Rect, inner: Rect): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
}

const routeMaps = new WeakMap<readonly EdgeRoute[], ReadonlyMap<string, EdgeRoute>>();

/** A layout's routes by edge id, built once per layout (every redraw of a window reads it). */
export function routesById(edges: readonly EdgeRoute[]): ReadonlyMap<string, EdgeRoute> {
  let routes = routeMaps.get(edges);
  if (routes === undefined) {
    routes = new Map(edges.map((r) => [r.id, r]));
    routeMaps.set(edges, routes);
  }
  return routes;
}

const bounds = new WeakMap<EdgeRoute, Rect>();

/** The bounding box of a route's points (its label included), computed once per route. */
export function edgeBounds(route: EdgeRoute): Rect {
  let b = bounds.get(route);
  if (b !== undefined) return b;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (x: number, y: number, pad: number): void => {
    x0 = Math.min(x0, x - pad);
    y0 = Math.min(y0, y - pad);
    x1 = Math.max(x1, x + pad);
    y1 = Math.max(y1, y + pad);
  };
  for (const p of route.points) add(p.x, p.y, 0);
  // A label is centred on its point: 60 points either side covers a long shape list.
  if (route.label !== null) add(route.label.x, route.label.y, 60);
  b = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  bounds.set(route, b);
  return b;
}

/**
 * What of a laid-out graph meets a window, each kind answered by a grid (spatial.ts) built on
 * its first query: drawn items, open modules and edges. One per drawn graph (see windowIndex).
 */
export class WindowIndex {
  private itemGrid: { ids: string[]; grid: GridIndex } | null = null;
  private containerGrid: { ids: string[]; grid: GridIndex } | null = null;
  private edgeGrid: { edges: VisibleEdge[]; grid: GridIndex } | null = null;

  constructor(
    private readonly visible: VisibleGraph,
    private readonly layout: LayoutResult,
  ) {}

  /** Ids of the drawn items (nodes, closed boxes) that have a place and meet `window`. */
  items(window: Rect): string[] {
    if (this.itemGrid === null) this.itemGrid = this.grid([...this.visible.items.keys()]);
    const { ids, grid } = this.itemGrid;
    return grid.query(window).map((i) => ids[i] as string);
  }

  /** Ids of the open modules that have a place and meet `window`. */
  containers(window: Rect): string[] {
    if (this.containerGrid === null) this.containerGrid = this.grid([...this.visible.containers.keys()]);
    const { ids, grid } = this.containerGrid;
    return grid.query(window).map((i) => ids[i] as string);
  }

  /** The drawn edges whose route (label included) meets `window`. */
  edges(window: Rect): VisibleEdge[] {
    if (this.edgeGrid === null) {
      const routes = routesById(this.layout.edges);
      const edges: VisibleEdge[] = [];
      const rects: Rect[] = [];
      for (const e of this.visible.edges) {
        const route = routes.get(e.id);
        if (route === undefined || route.points.length < 2) continue;
        edges.push(e);
        rects.push(edgeBounds(route));
      }
      this.edgeGrid = { edges, grid: new GridIndex(rects) };
    }
    const { edges, grid } = this.edgeGrid;
    return grid.query(window).map((i) => edges[i] as VisibleEdge);
  }

  private grid(all: string[]): { ids: string[]; grid: GridIndex } {
    const ids: string[] = [];
    const rects: Rect[] = [];
    for (const id of all) {
      const r = this.layout.rects[id];
      if (r === undefined) continue;
      ids.push(id);
      rects.push(r);
    }
    return { ids, grid: new GridIndex(rects) };
  }
}

const indexes = new WeakMap<VisibleGraph, { layout: LayoutResult; index: WindowIndex }>();

/** The WindowIndex of a drawn graph, built once per visible graph and layout. */
export function windowIndex(visible: VisibleGraph, layout: LayoutResult): WindowIndex {
  const known = indexes.get(visible);
  if (known !== undefined && known.layout === layout) return known.index;
  const index = new WindowIndex(visible, layout);
  indexes.set(visible, { layout, index });
  return index;
}

/** The part of the graph the view shows under `t`, in graph coordinates. */
export function viewRect(t: ZoomTransform, width: number, height: number): Rect {
  return { x: -t.x / t.k, y: -t.y / t.k, width: width / t.k, height: height / t.k };
}

/** `view` grown by MARGIN view sizes on every side. */
export function windowAround(view: Rect): Rect {
  return { x: view.x - MARGIN * view.width, y: view.y - MARGIN * view.height, width: (1 + 2 * MARGIN) * view.width, height: (1 + 2 * MARGIN) * view.height };
}

/**
 * Keeps track of the window a viewer's graph is drawn for. `windowFor` gives the window of a
 * draw (null: draw everything); when the view moves out of the window last drawn, `redraw`
 * is called, at once (a MutationObserver on the viewport's transform: before the frame).
 */
export class ViewWindow {
  private drawn: Rect | null = null;
  private virtual = false;
  /** The view's size, kept by a ResizeObserver: reading it never forces a reflow. */
  private size: { width: number; height: number } | null = null;

  constructor(
    private readonly svg: SVGSVGElement,
    viewport: SVGGElement,
    private readonly transform: () => ZoomTransform,
    private readonly redraw: () => void,
    cleanups: (() => void)[],
  ) {
    if (typeof ResizeObserver !== "undefined") {
      const resized = new ResizeObserver((entries) => {
        const box = entries[entries.length - 1]?.contentRect;
        if (box === undefined || box.width <= 0 || box.height <= 0) return;
        this.size = { width: box.width, height: box.height };
        if (this.stale()) this.redraw();
      });
      resized.observe(svg);
      cleanups.push(() => resized.disconnect());
    }
    if (typeof MutationObserver === "undefined") return;
    const observer = new MutationObserver(() => {
      if (this.stale()) this.redraw();
    });
    observer.observe(viewport, { attributes: true, attributeFilter: ["transform"] });
    cleanups.push(() => observer.disconnect());
  }

  /** Whether the last draw left out what lay outside its window. */
  get active(): boolean {
    return this.virtual;
  }

  /** The window to draw `items` drawn items for (null: all of them), remembered as drawn. */
  windowFor(items: number): Rect | null {
    this.virtual = items > VIRTUAL_ABOVE;
    this.drawn = this.virtual ? windowAround(this.view()) : null;
    return this.drawn;
  }

  /** The view left the window drawn, or shrank so far inside it that the window draws too much. */
  private stale(): boolean {
    if (!this.virtual || this.drawn === null) return false;
    const view = this.view();
    return !contains(this.drawn, view) || view.width * view.height * ZOOMED_IN < this.drawn.width * this.drawn.height;
  }

  private view(): Rect {
    if (this.size === null) {
      const r = this.svg.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) this.size = { width: r.width, height: r.height };
    }
    const { width, height } = this.size ?? { width: 800, height: 500 };
    return viewRect(this.transform(), width, height);
  }
}
