/**
 * Drawing one laid-out graph into an SVG group with d3. Every string from the document goes
 * in through `.text()` (a text node), never as markup. Styling is presentation attributes
 * from the palette, so exports need no stylesheet. No ids are created: several viewers can
 * share a page.
 */
import { select, type Selection } from "d3-selection";
import { formatShapes } from "../model/format";
import type { VisibleContainer, VisibleGraph, VisibleItem } from "../model/visible";
import type { LayoutResult, Point, Rect } from "../layout/types";
import type { GraphAction } from "./actions";
import { CONTROL_INSET, foldButtonWidth, HEADER_TEXT_X, TOGGLE_SIZE, type Look, type TextLine } from "./looks";
import { FONT_FAMILY, LABEL_FAMILY } from "./measure";
import type { Palette } from "./theme";
import { GridIndex } from "./spatial";
import { cutPath, cutRect, needsCut, pointText } from "./cut";
import { contains, edgeBounds, routesById, windowIndex } from "./virtual";

export interface DrawInput {
  readonly visible: VisibleGraph;
  readonly layout: LayoutResult;
  readonly looks: ReadonlyMap<string, Look>;
  readonly headers: ReadonlyMap<string, readonly TextLine[]>;
  readonly depthOf: (moduleId: string) => number;
  readonly palette: Palette;
  /** Id of this viewer's arrowhead marker: unique per viewer instance. */
  readonly markerId: string;
  /** Only what meets this rectangle (graph coordinates) is drawn; everything when absent (see virtual.ts). */
  readonly window?: Rect | null;
}

/** Squared distance of a rectangle's centre from a point: what is nearest the view is drawn first. */
function distance2(r: Rect, cx: number, cy: number): number {
  const dx = r.x + r.width / 2 - cx;
  const dy = r.y + r.height / 2 - cy;
  return dx * dx + dy * dy;
}

/** New elements a draw makes whatever its deadline, so that a slow frame still makes progress. */
const MIN_TAKES = 25;

/**
 * How many new elements a draw may still create and until when, and whether it had to leave any
 * out: a count alone let one frame make 250 elements in 25 ms on one machine and 60 on another.
 */
class Budget {
  short = false;
  private taken = 0;
  constructor(
    public left: number,
    private readonly deadline = Infinity,
  ) {}

  /** Spends one; false (and short) when none is left or the time is up. */
  take(): boolean {
    if (this.left <= 0 || (this.taken >= MIN_TAKES && this.deadline !== Infinity && performance.now() > this.deadline)) {
      this.short = true;
      return false;
    }
    this.left--;
    this.taken++;
    return true;
  }
}

/** `list` nearest the window's centre first (by `rect`), when a draw may not create all of it. */
function nearestFirst<T>(list: readonly T[], window: Rect | null | undefined, budget: number, rect: (t: T) => Rect | undefined): readonly T[] {
  if (window == null || list.length <= budget) return list;
  const cx = window.x + window.width / 2;
  const cy = window.y + window.height / 2;
  const far = Number.MAX_VALUE;
  const keys = list.map((t) => {
    const r = rect(t);
    return r === undefined ? far : distance2(r, cx, cy);
  });
  const order = list.map((_, i) => i).sort((a, b) => (keys[a] as number) - (keys[b] as number));
  return order.map((i) => list[i] as T);
}

/**
 * What a drawn item's or open module's contents depend on, made once per item and look (both
 * immutable): every frame of a window filled over frames compares the whole window's keys.
 */
const itemKeys = new WeakMap<VisibleItem, { look: Look; key: string }>();
const containerKeys = new WeakMap<VisibleContainer, { rect: Rect; depth: number; lines: readonly TextLine[]; key: string }>();

function itemKey(item: VisibleItem, look: Look): string {
  const known = itemKeys.get(item);
  if (known !== undefined && known.look === look) return known.key;
  const key =
    `${item.type}|${look.shape}|${look.width}|${look.height}|${item.failed}|` +
    (item.type === "box" ? `${item.repeat}|${look.fold}|` : `${item.node.kind}|`) +
    look.lines.map((l) => l.text).join("|");
  itemKeys.set(item, { look, key });
  return key;
}

const NO_LINES: readonly TextLine[] = [];

function containerKey(c: VisibleContainer, rect: Rect, depth: number, lines: readonly TextLine[]): string {
  const known = containerKeys.get(c);
  if (known !== undefined && known.rect === rect && known.depth === depth && known.lines === lines) return known.key;
  const key = `${rect.width}|${rect.height}|${depth}|${c.failed}|${c.run}|${lines.map((l) => l.text).join("|")}`;
  containerKeys.set(c, { rect, depth, lines, key });
  return key;
}

type G = Selection<SVGGElement, unknown, null, undefined>;

interface Kept {
  readonly el: SVGGElement;
  /** Everything the element's contents depend on; equal key = only its position may change. */
  readonly key: string;
  position: string;
  /** An open module's title lines, drawn above the edges (see GraphRenderer). */
  readonly title?: SVGGElement;
}

interface KeptEdge {
  readonly el: SVGGElement;
  readonly path: SVGPathElement;
  /** The route the path was drawn for; later routes that are a pure shift of it only move. */
  base: readonly Point[];
  shift: Point;
  /** The rectangle (base route coordinates) the path holds the curves of, when cut (see cut.ts); null when whole. */
  cut: Rect | null;
  /** Whether the path ends at the route's end, with the arrowhead. */
  arrow: boolean;
  label: SVGTextElement | null;
  labelKey: string;
}

/** The offset between two routes when one is the other shifted, else null. */
function shiftBetween(a: readonly Point[], b: readonly Point[]): Point | null {
  const a0 = a[0];
  const b0 = b[0];
  if (a.length !== b.length || a0 === undefined || b0 === undefined) return null;
  const dx = b0.x - a0.x;
  const dy = b0.y - a0.y;
  for (let i = 1; i < a.length; i++) {
    const p = a[i] as Point;
    const q = b[i] as Point;
    if (Math.abs(q.x - p.x - dx) > 0.05 || Math.abs(q.y - p.y - dy) > 0.05) return null;
  }
  return { x: dx, y: dy };
}

/** The values of `map` under `ids` (ids it lacks skipped). */
function inWindow<T>(ids: readonly string[], map: ReadonlyMap<string, T>): T[] {
  const out: T[] = [];
  for (const id of ids) {
    const value = map.get(id);
    if (value !== undefined) out.push(value);
  }
  return out;
}

const translate = (r: Rect): string => `translate(${r.x.toFixed(1)},${r.y.toFixed(1)})`;

/**
 * Draws laid-out graphs into one SVG group and keeps the elements between draws: an item
 * whose look is unchanged is only moved (one transform attribute), so a +/− on a large open
 * graph touches little of the DOM. Items are drawn at their own origin inside a translated
 * group; edges in graph coordinates.
 */
export class GraphRenderer {
  private readonly layers: { defs: G; modules: G; edges: G; titles: G; nodes: G; highlight: G };
  private items = new Map<string, Kept>();
  private containers = new Map<string, Kept>();
  /** The open modules' groups by depth (see depthLayer). */
  private depthLayers: G[] = [];
  private edges = new Map<string, KeptEdge>();
  /** The drawn edges' bounds for edgeNear; null until asked after a draw. */
  private edgeIndex: { readonly kept: readonly KeptEdge[]; readonly grid: GridIndex } | null = null;
  private paletteKey = "";

  constructor(root: SVGGElement) {
    const g: G = select(root);
    g.selectChildren().remove();
    this.layers = {
      defs: g.append("defs"),
      modules: g.append("g").attr("class", "vista-layer-modules"),
      edges: g.append("g").attr("class", "vista-layer-edges"),
      // Open modules' titles: above the edges, which often cross a module's header on their
      // way in, and haloed in the header's colour so the text stays readable where they do.
      titles: g.append("g").attr("class", "vista-layer-titles"),
      nodes: g.append("g").attr("class", "vista-layer-nodes"),
      highlight: g.append("g").attr("class", "vista-layer-highlight"),
    };
  }

  /**
   * Draws `input`, creating at most `budget` new open modules, items and edges (kept ones only move),
   * and none after `milliseconds` (but MIN_TAKES):
   * those nearest the window's centre first. False when some were left for a later draw, which
   * the caller makes in a later frame, so that zooming in on a big graph never builds its
   * window's 1,500 boxes in one frame.
   */
  draw(input: DrawInput, budget = Infinity, milliseconds = Infinity): boolean {
    const deadline = performance.now() + milliseconds;
    const paletteKey = `${input.palette.background}|${input.markerId}`;
    if (paletteKey !== this.paletteKey) {
      // New colours: nothing can be reused.
      this.paletteKey = paletteKey;
      for (const layer of [this.layers.defs, this.layers.modules, this.layers.edges, this.layers.titles, this.layers.nodes]) {
        layer.selectChildren().remove();
      }
      this.items.clear();
      this.containers.clear();
      this.depthLayers = [];
      this.edges.clear();
      this.drawMarker(input);
    }
    // Frames, then boxes, then the edges between them: the order the eye needs them in.
    const left = new Budget(budget, deadline);
    this.drawContainers(input, left);
    this.drawItems(input, left);
    this.drawEdges(input, left);
    return !left.short;
  }

  private drawMarker(input: DrawInput): void {
    const marker = this.layers.defs
      .append("marker")
      .attr("id", input.markerId)
      .attr("viewBox", "0 0 10 10")
      .attr("refX", 10)
      .attr("refY", 5)
      .attr("markerUnits", "userSpaceOnUse")
      .attr("markerWidth", 8)
      .attr("markerHeight", 7)
      .attr("orient", "auto");
    marker.append("path").attr("d", "M0,0L10,5L0,10Z").attr("fill", input.palette.edge);
  }

  /** Draws the open modules, creating new ones only as far as `budget` allows. */
  private drawContainers(input: DrawInput, budget: Budget): void {
    const { visible, layout, palette } = input;
    const next = new Map<string, Kept>();
    const shown = input.window == null ? [...visible.containers.values()] : inWindow(windowIndex(visible, layout).containers(input.window), visible.containers);
    for (const c of nearestFirst(shown, input.window, budget.left, (c) => layout.rects[c.id])) {
      const r = layout.rects[c.id];
      if (r === undefined) continue;
      const depth = input.depthOf(c.id);
      const lines = input.headers.get(c.id) ?? NO_LINES;
      const key = containerKey(c, r, depth, lines);
      let kept = this.containers.get(c.id);
      if (kept === undefined || kept.key !== key) {
        // Made in the budget's order (nearest first); depth layers keep the paint order right.
        if (!budget.take()) continue;
        kept?.el.remove();
        kept?.title?.remove();
        const el = this.depthLayer(depth)
          .append("g")
          .attr("class", "vista-module")
          .attr("data-id", c.id)
          .attr("data-state", "expanded")
          .attr("data-depth", depth);
        if (c.failed) el.attr("data-failed", "true");
        const local = { x: 0, y: 0, width: r.width, height: r.height };
        const fill = palette.moduleFills[depth % palette.moduleFills.length] ?? palette.background;
        el.append("rect")
          .attr("class", "vista-module-frame")
          .attr("width", r.width)
          .attr("height", r.height)
          .attr("rx", 10)
          .attr("fill", fill)
          .attr("stroke", c.failed ? palette.failed : palette.moduleStroke)
          .attr("stroke-width", c.failed ? 1.6 : 1);
        drawToggle(el, local, "−", palette);
        if (c.run > 0) drawFoldBack(el, local, c.run, palette);
        const title = this.layers.titles.append("g").attr("class", "vista-module-title").attr("data-id", c.id);
        drawLines(title, lines, HEADER_TEXT_X, 8, "start", palette.text, palette, fill);
        kept = { el: el.node() as SVGGElement, key, position: "", title: title.node() as SVGGElement };
      }
      const position = translate(r);
      if (kept.position !== position) {
        kept.el.setAttribute("transform", position);
        kept.title?.setAttribute("transform", position);
        kept.position = position;
      }
      next.set(c.id, kept);
    }
    for (const [id, kept] of this.containers) {
      if (next.has(id)) continue;
      kept.el.remove();
      kept.title?.remove();
    }
    this.containers = next;
  }

  /**
   * The group open modules of `depth` are drawn in: one per depth, in depth order, so outer
   * frames paint below inner ones however late a frame is made (no reordering of the DOM).
   */
  private depthLayer(depth: number): G {
    const layer = this.layers.modules;
    while (this.depthLayers.length <= depth) {
      this.depthLayers.push(layer.append("g").attr("data-depth", this.depthLayers.length));
    }
    return this.depthLayers[depth] as G;
  }

  /** Draws the edges, creating new ones only as far as `budget` allows. */
  private drawEdges(input: DrawInput, budget: Budget): void {
    const { visible, layout, palette } = input;
    const routes = routesById(layout.edges);
    const next = new Map<string, KeptEdge>();
    const shown = input.window == null ? visible.edges : windowIndex(visible, layout).edges(input.window);
    for (const e of nearestFirst(shown, input.window, budget.left, (e) => {
      const r = routes.get(e.id);
      return r === undefined ? undefined : edgeBounds(r);
    })) {
      const route = routes.get(e.id);
      if (route === undefined || route.points.length < 2) continue;
      let kept = this.edges.get(e.id);
      if (kept === undefined) {
        if (!budget.take()) continue;
        const el = this.layers.edges
          .append("g")
          .attr("class", "vista-edge")
          .attr("data-edge", e.id)
          .attr("data-source", e.source)
          .attr("data-target", e.target);
        const path = el
          .append("path")
          .attr("class", "vista-edge-line")
          .attr("fill", "none")
          .attr("stroke", palette.edge)
          .attr("stroke-width", 1.2)
          .attr("marker-end", `url(#${input.markerId})`);
        kept = { el: el.node() as SVGGElement, path: path.node() as SVGPathElement, base: [], shift: { x: 0, y: 0 }, cut: null, arrow: true, label: null, labelKey: "" };
      }
      let shift = shiftBetween(kept.base, route.points);
      const moved = shift === null;
      if (shift === null) {
        kept.base = route.points;
        shift = { x: 0, y: 0 };
      }
      // The window in the coordinates of the path as drawn (its base route, before the shift).
      const window = input.window == null ? null : { ...input.window, x: input.window.x - shift.x, y: input.window.y - shift.y };
      const grown = window === null ? null : cutRect(window);
      const cut = grown !== null && needsCut(edgeBounds(route), grown) ? grown : null;
      const stale = cut === null ? kept.cut !== null : kept.cut === null || !contains(kept.cut, window as Rect);
      if (moved || stale) {
        const part = cut === null ? null : cutPath(kept.base, cut);
        kept.path.setAttribute("d", part === null ? pathData(kept.base) : part.d);
        kept.cut = cut;
        const arrow = part === null || part.end;
        if (arrow !== kept.arrow) {
          if (arrow) kept.path.setAttribute("marker-end", `url(#${input.markerId})`);
          else kept.path.removeAttribute("marker-end");
          kept.arrow = arrow;
        }
      }
      if (shift.x !== kept.shift.x || shift.y !== kept.shift.y) {
        if (shift.x === 0 && shift.y === 0) kept.el.removeAttribute("transform");
        else kept.el.setAttribute("transform", `translate(${shift.x.toFixed(1)},${shift.y.toFixed(1)})`);
        kept.shift = shift;
      }
      // The label sits in the edge's group, in the coordinates of its base route.
      const lx = route.label === null ? 0 : route.label.x - shift.x;
      const ly = route.label === null ? 0 : route.label.y - shift.y;
      const labelKey = route.label === null ? "" : `${lx.toFixed(1)}|${ly.toFixed(1)}|${route.label.text}`;
      if (labelKey !== kept.labelKey) {
        kept.label?.remove();
        kept.label = null;
        if (route.label !== null) {
          kept.label = select(kept.el)
            .append("text")
            .attr("class", "vista-edge-label")
            .attr("x", lx.toFixed(1))
            .attr("y", ly.toFixed(1))
            .attr("dy", "0.35em")
            .attr("text-anchor", "middle")
            .attr("font-family", LABEL_FAMILY)
            .attr("font-size", 9)
            .attr("fill", palette.edgeLabel)
            .call(halo, palette.background, 3)
            .text(route.label.text || formatShapes(e.tensors))
            .node();
        }
        kept.labelKey = labelKey;
      }
      next.set(e.id, kept);
    }
    for (const [id, kept] of this.edges) if (!next.has(id)) kept.el.remove();
    this.edges = next;
    this.edgeIndex = null;
  }

  /**
   * The drawn edge whose line passes within `reach` (graph units) of the point (x, y) in graph
   * coordinates, the nearest one, or null. The index is built at the first question after a draw,
   * so drawing pays nothing for it.
   */
  edgeNear(x: number, y: number, reach: number): SVGGElement | null {
    if (this.edgeIndex === null) {
      const kept = [...this.edges.values()];
      const boxes = kept.map((e) => boundsOf(e.base, e.shift));
      this.edgeIndex = { kept, grid: new GridIndex(boxes) };
    }
    const { kept, grid } = this.edgeIndex;
    let best: SVGGElement | null = null;
    let bestDistance = reach;
    for (const i of grid.query({ x: x - reach, y: y - reach, width: 2 * reach, height: 2 * reach })) {
      const e = kept[i] as KeptEdge;
      const d = distanceToRoute(e.base, x - e.shift.x, y - e.shift.y);
      if (d <= bestDistance) {
        bestDistance = d;
        best = e.el;
      }
    }
    return best;
  }

  /** Draws the items, creating new ones only as far as `budget` allows. */
  private drawItems(input: DrawInput, budget: Budget): void {
    const { visible, layout, palette } = input;
    const next = new Map<string, Kept>();
    const shown = input.window == null ? [...visible.items.values()] : inWindow(windowIndex(visible, layout).items(input.window), visible.items);
    for (const item of nearestFirst(shown, input.window, budget.left, (item) => layout.rects[item.id])) {
      const r = layout.rects[item.id];
      const look = input.looks.get(item.id);
      if (r === undefined || look === undefined) continue;
      const key = itemKey(item, look);
      let kept = this.items.get(item.id);
      if (kept === undefined || kept.key !== key) {
        kept?.el.remove();
        if (!budget.take()) continue;
        const el = item.type === "node" ? this.drawNode(item.id, item.node.kind, item.failed, look, palette) : this.drawBox(item.id, item.repeat, item.failed, item.module.class_qualname, look, palette);
        if (item.type === "node" && item.shared) el.setAttribute("data-shared", "true");
        kept = { el, key, position: "" };
      }
      const position = translate(r);
      if (kept.position !== position) {
        kept.el.setAttribute("transform", position);
        kept.position = position;
      }
      next.set(item.id, kept);
    }
    for (const [id, kept] of this.items) if (!next.has(id)) kept.el.remove();
    this.items = next;
  }

  private drawNode(id: string, kind: string, failed: boolean, look: Look, palette: Palette): SVGGElement {
    const colors = palette.nodes[look.shape];
    const r = { x: 0, y: 0, width: look.width, height: look.height };
    const el = this.layers.nodes.append("g").attr("class", "vista-node").attr("data-id", id).attr("data-kind", kind);
    if (failed) {
      el.attr("data-failed", "true");
      el.append("rect")
        .attr("x", -5)
        .attr("y", -5)
        .attr("width", r.width + 10)
        .attr("height", r.height + 10)
        .attr("rx", 8)
        .attr("fill", "none")
        .attr("stroke", palette.failed)
        .attr("stroke-width", 1.5)
        .attr("stroke-dasharray", "4 3");
    }
    el.append("path")
      .attr("d", shapePath(look.shape, r))
      .attr("fill", colors.fill)
      .attr("stroke", colors.stroke)
      .attr("stroke-width", look.shape === "error" ? 2.5 : look.shape === "output" ? 2 : 1.2)
      .attr("stroke-dasharray", look.shape === "buffer" ? "3 2" : null);
    const textHeight = linesHeight(look.lines);
    drawLines(el, look.lines, r.width / 2, (r.height - textHeight) / 2, "middle", colors.text, palette);
    return el.node() as SVGGElement;
  }

  private drawBox(id: string, repeat: number, failed: boolean, qualname: string, look: Look, palette: Palette): SVGGElement {
    const colors = palette.nodes[look.shape]; // "box", or a group's "input" / "output"
    const r = { x: 0, y: 0, width: look.width, height: look.height };
    const el = this.layers.nodes.append("g").attr("class", "vista-module").attr("data-id", id).attr("data-state", "collapsed");
    if (repeat > 1) el.attr("data-repeat", repeat);
    if (failed) el.attr("data-failed", "true");
    el.append("title").text(qualname);
    const stroke = failed ? palette.failed : colors.stroke;
    if (repeat > 1) {
      for (const off of [6, 3]) {
        el.append("rect")
          .attr("x", off)
          .attr("y", -off)
          .attr("width", r.width)
          .attr("height", r.height)
          .attr("rx", 8)
          .attr("fill", colors.fill)
          .attr("stroke", stroke)
          .attr("stroke-width", 1);
      }
    }
    el.append("rect")
      .attr("class", "vista-module-frame")
      .attr("width", r.width)
      .attr("height", r.height)
      .attr("rx", 8)
      .attr("fill", colors.fill)
      .attr("stroke", stroke)
      .attr("stroke-width", failed ? 2 : 1.3);
    drawLines(el, look.lines, 10, 7, "start", colors.text, palette);
    drawToggle(el, r, "+", palette);
    if (look.fold > 0) drawFoldBack(el, r, look.fold, palette);
    return el.node() as SVGGElement;
  }

  /** Outlines the selected item (or none). */
  drawSelection(rect: Rect | null, palette: Palette): void {
    const layer = this.layers.highlight;
    layer.selectChildren().remove();
    if (rect === null) return;
    layer
      .append("rect")
      .attr("class", "vista-selection")
      .attr("x", rect.x - 3)
      .attr("y", rect.y - 3)
      .attr("width", rect.width + 6)
      .attr("height", rect.height + 6)
      .attr("rx", 7)
      .attr("fill", "none")
      .attr("stroke", palette.selected)
      .attr("stroke-width", 3)
      .attr("pointer-events", "none");
  }
}

function linesHeight(lines: readonly TextLine[]): number {
  return lines.reduce((h, l) => h + l.size * 1.3, 0);
}

/**
 * A halo around text in `color` (a stroke painted under the fill), so lines crossing it stop
 * short of the letters. The PDF export finds halos by their paint-order and drops them.
 */
function halo(text: Selection<SVGTextElement, unknown, null, undefined>, color: string, width: number): void {
  text.attr("stroke", color).attr("stroke-width", width).attr("stroke-linejoin", "round").attr("paint-order", "stroke");
}

function drawLines(
  el: G,
  lines: readonly TextLine[],
  x: number,
  top: number,
  anchor: "start" | "middle",
  color: string,
  palette: Palette,
  haloColor?: string,
): void {
  let y = top;
  for (const l of lines) {
    y += l.size * 1.3;
    const text = el.append("text")
      .attr("x", x)
      .attr("y", y - l.size * 0.3)
      .attr("text-anchor", anchor)
      .attr("font-family", FONT_FAMILY)
      .attr("font-size", l.size)
      .attr("font-weight", l.weight)
      .attr("fill", l.muted ? palette.muted : color);
    if (haloColor !== undefined) halo(text, haloColor, 4);
    text.text(l.text);
  }
}

/** A small labelled button in a box's header (the +/− toggle, the fold-back "×N"). */
function drawHeaderButton(
  el: G,
  at: { x: number; y: number; width: number },
  action: GraphAction,
  label: string,
  text: string,
  fontSize: number,
  palette: Palette,
): G {
  const b = el
    .append("g")
    .attr("data-action", action)
    .attr("role", "button")
    .attr("tabindex", 0) // reachable with Tab; Enter or Space presses it (see graph-events.ts)
    .attr("cursor", "pointer")
    .attr("aria-label", label);
  b.append("rect")
    .attr("x", at.x)
    .attr("y", at.y)
    .attr("width", at.width)
    .attr("height", TOGGLE_SIZE)
    .attr("rx", 3)
    .attr("fill", palette.toggleFill)
    .attr("stroke", palette.moduleStroke);
  b.append("text")
    .attr("x", at.x + at.width / 2)
    .attr("y", at.y + TOGGLE_SIZE / 2 + fontSize / 3)
    .attr("text-anchor", "middle")
    .attr("font-family", FONT_FAMILY)
    .attr("font-size", fontSize)
    .attr("font-weight", 700)
    .attr("fill", palette.text)
    .text(text);
  return b;
}

function drawToggle(el: G, r: Rect, sign: "+" | "−", palette: Palette): void {
  const at = { x: r.x + r.width - TOGGLE_SIZE - CONTROL_INSET, y: r.y + 6, width: TOGGLE_SIZE };
  drawHeaderButton(el, at, "toggle", sign === "+" ? "open" : "close", sign, 14, palette);
}

/** The "×N" button left of the toggle of a call in an unfolded run: folds the run back. */
function drawFoldBack(el: G, r: Rect, n: number, palette: Palette): void {
  const width = foldButtonWidth(n);
  const at = { x: r.x + r.width - TOGGLE_SIZE - CONTROL_INSET - 4 - width, y: r.y + 6, width };
  const label = `Fold the ${n} identical calls back into one box`;
  const b = drawHeaderButton(el, at, "fold", label, `×${n}`, 10.5, palette);
  b.insert("title", ":first-child").text(label);
}

/** Straight pieces each cubic segment of a route is cut into when measuring distance to it. */
const PIECES = 12;

/** The corners of a route drawn by pathData: its points, or its cubic segments cut into straight pieces. */
function polyline(points: readonly Point[]): Point[] {
  const [first, ...rest] = points;
  if (first === undefined || rest.length % 3 !== 0) return [...points];
  const out: Point[] = [first];
  let p0 = first;
  for (let i = 0; i < rest.length; i += 3) {
    const [p1, p2, p3] = [rest[i] as Point, rest[i + 1] as Point, rest[i + 2] as Point];
    for (let k = 1; k <= PIECES; k++) {
      const t = k / PIECES;
      const u = 1 - t;
      const a = u * u * u;
      const b = 3 * u * u * t;
      const c = 3 * u * t * t;
      const d = t * t * t;
      out.push({ x: a * p0.x + b * p1.x + c * p2.x + d * p3.x, y: a * p0.y + b * p1.y + c * p2.y + d * p3.y });
    }
    p0 = p3;
  }
  return out;
}

/** Distance from (x, y) to the line pathData draws through `points`. */
export function distanceToRoute(points: readonly Point[], x: number, y: number): number {
  const line = polyline(points);
  let best = Infinity;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1] as Point;
    const b = line[i] as Point;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length2 = dx * dx + dy * dy;
    const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, ((x - a.x) * dx + (y - a.y) * dy) / length2));
    best = Math.min(best, Math.hypot(x - a.x - t * dx, y - a.y - t * dy));
  }
  return line.length === 1 ? Math.hypot(x - (line[0] as Point).x, y - (line[0] as Point).y) : best;
}

/** The box around a route's points moved by `shift` (a cubic stays inside its control points). */
function boundsOf(points: readonly Point[], shift: Point): Rect {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const p of points) {
    x0 = Math.min(x0, p.x);
    y0 = Math.min(y0, p.y);
    x1 = Math.max(x1, p.x);
    y1 = Math.max(y1, p.y);
  }
  return { x: x0 + shift.x, y: y0 + shift.y, width: x1 - x0, height: y1 - y0 };
}

export function pathData(points: readonly Point[]): string {
  const f = pointText;
  const [first, ...rest] = points;
  if (first === undefined) return "";
  if (rest.length % 3 !== 0) return `M${f(first)}` + rest.map((p) => `L${f(p)}`).join("");
  let d = `M${f(first)}`;
  for (let i = 0; i < rest.length; i += 3) {
    d += `C${f(rest[i] as Point)} ${f(rest[i + 1] as Point)} ${f(rest[i + 2] as Point)}`;
  }
  return d;
}

export function shapePath(shape: Look["shape"], r: Rect): string {
  const { x, y, width: w, height: h } = r;
  const rounded = (rad: number): string =>
    `M${x + rad},${y}H${x + w - rad}A${rad},${rad} 0 0 1 ${x + w},${y + rad}V${y + h - rad}` +
    `A${rad},${rad} 0 0 1 ${x + w - rad},${y + h}H${x + rad}A${rad},${rad} 0 0 1 ${x},${y + h - rad}` +
    `V${y + rad}A${rad},${rad} 0 0 1 ${x + rad},${y}Z`;
  switch (shape) {
    case "input":
    case "output":
      return rounded(h / 2);
    case "parameter":
    case "buffer":
      return `M${x},${y}H${x + w - 8}L${x + w},${y + 8}V${y + h}H${x}Z`;
    case "constant":
      return `M${x},${y + h / 2}A${w / 2},${h / 2} 0 1 0 ${x + w},${y + h / 2}A${w / 2},${h / 2} 0 1 0 ${x},${y + h / 2}Z`;
    default:
      return rounded(4);
  }
}

