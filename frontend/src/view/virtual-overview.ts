/**
 * The far-out picture of a big graph: when the window holds more boxes than the DOM can paint
 * in a frame (a Fit of 50,000 nodes), every box in it becomes one subpath of a few <path>
 * elements (open modules, closed boxes, edges as polylines) instead of a group with text each.
 * Nothing is readable at that zoom anyway; zooming in brings the full drawing back.
 */
import type { LayoutResult, Rect } from "../layout/types";
import type { VisibleGraph } from "../model/visible";
import type { Palette } from "./theme";
import { edgeBounds, intersects, routesById, windowIndex } from "./virtual";

/** Boxes in the window above which it is drawn as an overview. */
export const OVERVIEW_ABOVE = 1500;
/** Boxes and edges smaller than this on screen (px, both sides) are left out: they would not show. */
const MIN_SCREEN = 1.5;

const SVG_NS = "http://www.w3.org/2000/svg";

/** How many drawn items of `visible` meet `window`. */
export function itemsIn(visible: VisibleGraph, layout: LayoutResult, window: Rect): number {
  return windowIndex(visible, layout).items(window).length;
}

const rectPath = (r: Rect): string => `M${r.x.toFixed(1)},${r.y.toFixed(1)}h${r.width.toFixed(1)}v${r.height.toFixed(1)}h${(-r.width).toFixed(1)}Z`;

/**
 * Draws the overview of what meets `window` at zoom `scale` into `layer` (emptied first); null
 * `window` only empties it. What is under MIN_SCREEN pixels is skipped, so the paths hold about
 * as many pieces as the screen can show, not as many as the graph has (100k boxes made a path
 * that took seconds to paint).
 */
export function drawOverview(layer: SVGGElement, visible: VisibleGraph, layout: LayoutResult, window: Rect | null, palette: Palette, scale: number): void {
  while (layer.firstChild !== null) layer.firstChild.remove();
  if (window === null) return;
  const min = MIN_SCREEN / scale;
  const shows = (r: Rect): boolean => (r.width >= min || r.height >= min) && intersects(r, window);
  const parts = { modules: [] as string[], items: [] as string[], edges: [] as string[] };
  const index = windowIndex(visible, layout);
  for (const c of index.containers(window)) {
    const r = layout.rects[c] as Rect;
    if (shows(r)) parts.modules.push(rectPath(r));
  }
  for (const id of index.items(window)) {
    const r = layout.rects[id] as Rect;
    if (shows(r)) parts.items.push(rectPath(r));
  }
  const routes = routesById(layout.edges);
  for (const e of index.edges(window)) {
    const route = routes.get(e.id);
    if (route === undefined || !shows(edgeBounds(route))) continue;
    parts.edges.push("M" + route.points.map((p) => `${p.x.toFixed(0)},${p.y.toFixed(0)}`).join("L"));
  }
  const path = (d: string[], fill: string, stroke: string): void => {
    if (d.length === 0) return;
    const el = layer.ownerDocument.createElementNS(SVG_NS, "path");
    el.setAttribute("d", d.join(""));
    el.setAttribute("fill", fill);
    el.setAttribute("stroke", stroke);
    // Hairlines at any zoom: the overview is seen from far out.
    el.setAttribute("vector-effect", "non-scaling-stroke");
    el.setAttribute("stroke-width", "1");
    layer.appendChild(el);
  };
  path(parts.modules, palette.moduleFills[1] ?? palette.background, palette.moduleStroke);
  path(parts.edges, "none", palette.edge);
  path(parts.items, palette.nodes.box.fill, palette.nodes.box.stroke);
}
