/**
 * One mounted viewer: owns its DOM (under the container it was given), its open/closed
 * state, and drives model -> layout -> drawing. Several viewers on a page share nothing but
 * the layout worker.
 */
import { DocumentError, readForView, type GraphIndex, type ViewRead } from "../model/document";
import { isDiffDocument } from "../model/diff";
import { mountDiff } from "./diff";
import { search } from "../model/search";
import * as states from "../model/state";
import { computeVisibleGraph, drawnNodeAt, type VisibleEdge, type VisibleGraph } from "../model/visible";
import { acquireLayoutClient, releaseLayoutClient, type LayoutClient } from "../layout/client";
import type { LayoutResult, Rect } from "../layout/types";
import { toolbarAction, unhandled, type ToolbarAction } from "./actions";
import { Camera, READABLE_SCALE, UNREADABLE_SCALE, type Anchor } from "./camera";
import { buildChrome, buildErrorPanel, fillLegend, showTracebackEnd, type Chrome } from "./chrome";
import { showModule, showNode } from "./details";
import { showEdge } from "./edge-details";
import { markSelectedEdge, wireEdges } from "./edges";
import { wireKeys } from "./keys";
import { LineageControl } from "./lineage";
import { move, type Move } from "../model/moves";
import { download, exportPdf, exportPng, exportSvgString, type ExportSource } from "./export";
import type { Look, TextLine } from "./looks";
import { clampFrame, countInView, lookingAt } from "./frame";
import { createMeasure, type Measure } from "./measure";
import { loadTextFont, type PageResources, type TextFont } from "./text-font";
import { Minimap } from "./minimap";
import { GraphRenderer, type DrawInput } from "./render";
import { LevelOfDetail } from "./lod";
import { sizeVisibleGraph } from "./sizing";
import { wireGraph } from "./graph-events";
import { wireSearch } from "./search-results";
import { mark } from "../perf";
import { ViewWindow } from "./virtual";
import { itemsIn, OverviewCanvas, OVERVIEW_ABOVE } from "./virtual-overview";
import css from "./styles.css";
import insightCss from "./insight.css";
import { InsightView } from "./insight-view";
import { appendInsight } from "./insight-details";
import { buildNonfiniteBanner } from "./numerics";
import { fitToolbar } from "./toolbar-menus";
import { firstNonfinite } from "../model/insight";
import type { ViewerOptions } from "../model/schema.generated";
import type { ZoomTransform } from "d3-zoom";
import { PALETTES, resolveTheme, watchHostTheme, type Palette, type ThemeName, type ThemeOption } from "./theme";

/** The options of mount(): generated from vista-schema's viewer-options.schema.json, which Python checks too. */
export type { ViewerOptions } from "../model/schema.generated";

export interface ViewerHandle {
  readonly ready: Promise<void>;
  /** Opens the model's modules down to torch.nn layers; ×N runs show their first call. */
  openModules(): Promise<void>;
  expandAll(): Promise<void>;
  collapseAll(): Promise<void>;
  setDepth(depth: number): Promise<void>;
  search(query: string): string[];
  select(id: string): Promise<void>;
  exportSVG(): string;
  exportPNG(): Promise<Blob>;
  exportPDF(): Promise<Blob>;
  setTheme(theme: ThemeOption): void;
  destroy(): void;
}

/**
 * What a view built on this viewer (the diff view, view/diff.ts) adds to it; a plain viewer has
 * none. `read` replaces reading the document (an error it throws is shown like a bad document's).
 */
export interface ViewerHooks {
  read?(): GraphIndex;
  /** After every draw: the drawn graph, to decorate. */
  drawn?(view: DrawnView): void;
  /** After the details panel was filled for `id`. */
  details?(panel: HTMLElement, id: string): void;
  /** After the details panel was filled for the drawn edge `edge`. */
  edgeDetails?(panel: HTMLElement, edge: VisibleEdge): void;
  /** A click picked `id`. */
  picked?(id: string): void;
  /** The user's +/− opened or closed module `id`, or unfolded the run whose box it is. */
  toggled?(id: string, how: OpenChange): void;
  /** After the legend was filled. */
  legend?(legend: HTMLElement, palette: Palette): void;
  /** The user panned or zoomed (the camera moved from `before` to `after`). */
  moved?(before: ZoomTransform, after: ZoomTransform): void;
  /** The theme changed (or was first resolved). */
  themed?(theme: ThemeName): void;
}

export type OpenChange = "open" | "close" | "unfold";

/** What was drawn, as ViewerHooks.drawn gets it. */
export interface DrawnView {
  readonly viewport: SVGGElement;
  readonly index: GraphIndex;
  readonly visible: VisibleGraph;
  readonly layout: LayoutResult;
  readonly palette: Palette;
}

type ViewTarget = { kind: "fit" } | { kind: "overview" } | { kind: "focus"; id: string } | { kind: "center"; id: string } | { kind: "anchor"; anchor: Anchor } | { kind: "context"; anchor: Anchor | null } | { kind: "keep" };

const PROGRESS_DELAY_MS = 150;
/** Drawn items above which a relayout's steps (visible graph, sizes, request, drawing) run as separate tasks. */
const SPLIT_ABOVE = 6000;
/** How long one slice of the document's check after the first draw runs before the page gets the thread back. */
const CHECK_SLICE_MS = 40;
/** How near an edge's line (graph units) the pointer hovers and clicks it: half of a 9-unit stroke. */
const EDGE_REACH = 4.5;
/** New open modules, items and edges made per frame at most; the rest come in the next frames. */
const FILL_PER_FRAME = 250;
/** Script time a frame spends making them: their style and paint come on top, about as much again. */
const FILL_MS = 10;
/** A window that meets nothing: the renderer draws no box while the overview stands in. */
const EMPTY = { x: -1e12, y: -1e12, width: 0, height: 0 };
let instances = 0;

export class Viewer {
  private readonly chrome: Chrome;
  private readonly measure: Measure;
  private readonly camera: Camera;
  private readonly minimap: Minimap;
  private readonly lod: LevelOfDetail;
  private readonly renderer: GraphRenderer;
  private readonly insight: InsightView;
  private readonly lineage: LineageControl;
  private readonly window: ViewWindow;
  /** The far-out drawing of a big graph, a canvas under the SVG (see virtual-overview.ts). */
  private readonly overview: OverviewCanvas;
  private index: GraphIndex | null = null;
  /** The document's check still to do after the first draw; null once it is done (or for a hook's index). */
  private unchecked: ViewRead | null = null;
  private state: states.ViewState | null = null;
  private visible: VisibleGraph | null = null;
  private layout: LayoutResult | null = null;
  private looks: ReadonlyMap<string, Look> = new Map();
  private headers: ReadonlyMap<string, readonly TextLine[]> = new Map();
  private themeOption: ThemeOption;
  private theme: ThemeName = "light";
  private selected: string | null = null;
  /** The picked edge (a VisibleEdge id), when an edge rather than a node or module is selected. */
  private selectedEdge: string | null = null;
  private readonly markerId = `vista-${++instances}-arrow`;
  private client: LayoutClient | null = null;
  private generation = 0;
  private destroyed = false;
  /** The frame request that goes on drawing a window not yet filled (0: none), see redraw. */
  private filling = 0;
  /** Whether a window was left unfilled since the last `vista:filled` mark. */
  private unfilled = false;
  private readonly cleanups: (() => void)[] = [];
  private textFont: TextFont | null = null;
  private resolveReady: () => void = () => undefined;
  private rejectReady: (e: Error) => void = () => undefined;
  readonly ready: Promise<void>;

  constructor(
    private readonly container: HTMLElement,
    document: unknown,
    private readonly options: ViewerOptions,
    private readonly hooks: ViewerHooks = {},
    textFont: Promise<TextFont> | null = null,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => undefined);
    mark("mount");
    this.chrome = buildChrome(css + insightCss);
    this.chrome.root.style.height = options.height ?? "100%";
    container.appendChild(this.chrome.root);
    this.renderer = new GraphRenderer(this.chrome.viewport);
    this.measure = createMeasure();
    this.insight = new InsightView(this.chrome.toolbar, this.chrome.canvas, this.chrome.viewport, this.measure, {
      index: () => this.index,
      visible: () => this.visible,
      layout: () => this.layout,
      theme: () => this.theme,
      background: () => this.palette().background,
      jump: (id) => this.select(id),
    });
    this.cleanups.push(fitToolbar(this.chrome.toolbar));
    this.themeOption = options.theme ?? "auto";
    this.applyTheme();
    this.watchTheme();

    this.camera = new Camera(this.chrome.svg, this.chrome.viewport, this.cleanups);
    this.camera.onUserMove = (before, after) => this.hooks.moved?.(before, after);
    this.lineage = new LineageControl(() => this.applyLineage());
    this.chrome.details.insertBefore(this.lineage.bar, this.chrome.detailsContent);
    this.minimap = new Minimap(this.chrome.canvas, (x, y) => this.camera.centerAt(x, y));
    this.camera.watch(() => this.minimap.follow(this.camera.frame(), this.camera.view()));
    this.overview = new OverviewCanvas(this.chrome.canvas, this.chrome.svg, () => this.camera.transform());
    this.camera.watch(() => this.overview.moved());
    this.window = new ViewWindow(this.chrome.svg, this.chrome.viewport, () => this.camera.transform(), () => this.redraw(), this.cleanups);
    this.lod = new LevelOfDetail(this.chrome.svg);
    this.camera.watch(() => this.lod.follow(this.camera.frame()));
    this.wireEvents();
    wireSearch(this.chrome, () => this.index, (id) => void this.select(id));

    let index: GraphIndex;
    try {
      if (this.hooks.read !== undefined) index = this.hooks.read();
      else {
        this.unchecked = readForView(document);
        index = this.unchecked.index;
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    this.index = index;
    mark("document-read");
    try {
      this.open(index, textFont);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The first view of a read document: its state, panels and first layout, then the rest of the check. */
  private open(index: GraphIndex, textFont: Promise<TextFont> | null): void {
    const options = this.options;
    const depth = Math.max(0, Math.floor(options.depth ?? 1));
    let state = states.stateAtDepth(index, depth, {
      showParameters: options.showParameters ?? true,
      showConstants: options.showConstants ?? true,
    });
    this.chrome.depth.value = String(depth);
    this.chrome.depth.max = String(states.maxDepth(index));
    const failed = index.doc.error?.node ?? [...index.failedNodes][0];
    if (index.doc.error !== undefined) {
      const show = failed !== undefined && index.nodes.has(failed) ? () => void this.select(failed) : null;
      const panel = buildErrorPanel(index.doc.error, show);
      this.chrome.root.insertBefore(panel, this.chrome.root.querySelector(".vista-body"));
      showTracebackEnd(panel);
    }
    let target: ViewTarget = { kind: "overview" };
    // A page with a first non-finite op opens on it, unless a failure has the view.
    const nonfinite = firstNonfinite(index);
    if (nonfinite !== null) {
      this.insight.markFirstNonfinite(nonfinite);
      const banner = buildNonfiniteBanner(index, nonfinite, () => void this.select(nonfinite));
      this.chrome.root.insertBefore(banner, this.chrome.root.querySelector(".vista-body"));
    }
    const opening = failed !== undefined && index.nodes.has(failed) ? failed : nonfinite ?? undefined;
    if (opening !== undefined) {
      state = states.reveal(index, state, opening);
      target = { kind: "focus", id: opening };
      this.selected = opening;
    }
    this.state = state;
    this.client = acquireLayoutClient();
    if (this.selected !== null) this.showDetails(this.selected);
    // The first layout measures the names, so it waits for the font that draws them.
    const font = (textFont ?? Promise.resolve(null)).then(
      (loaded) => {
        this.textFont = loaded;
      },
      (error: unknown) => console.error("Vista: the page's text font could not be loaded;", error),
    );
    void font.then(() => this.relayout(target)).then(() => this.checkRest()).then(
      () => {
        this.chrome.root.dataset["state"] = "ready";
        mark("ready");
        this.resolveReady();
      },
      (error: unknown) => this.fail(error),
    );
  }

  handle(): ViewerHandle {
    return {
      ready: this.ready,
      // The depth box shows the depth these states correspond to: everything open, or depth 1.
      openModules: () =>
        this.change((i, s) => {
          this.chrome.depth.value = String(states.maxDepth(i));
          return states.openModules(i, s);
        }, this.context()),
      expandAll: () =>
        this.change((i, s) => {
          this.chrome.depth.value = String(states.maxDepth(i));
          return states.expandAll(i, s);
        }, this.context()),
      collapseAll: () =>
        this.change((i, s) => {
          this.chrome.depth.value = "1";
          return states.collapseAll(i, s);
        }, this.context()),
      setDepth: (d: number) => this.setDepth(d),
      search: (q: string) => (this.index === null ? [] : search(this.index, q).map((h) => h.id)),
      select: (id: string) => this.select(id),
      exportSVG: () => exportSvgString(this.exportSource()),
      exportPNG: () => exportPng(this.exportSource()),
      exportPDF: () => exportPdf(this.exportSource()),
      setTheme: (t: ThemeOption) => this.setTheme(t),
      destroy: () => this.destroy(),
    };
  }

  // ---- state changes -------------------------------------------------------------------

  private async change(update: (i: GraphIndex, s: states.ViewState) => states.ViewState, target: ViewTarget): Promise<void> {
    if (this.index === null || this.state === null || this.destroyed) return;
    this.state = update(this.index, this.state);
    await this.relayout(target);
  }

  private async setDepth(depth: number): Promise<void> {
    const d = Math.max(0, Math.floor(Number.isFinite(depth) ? depth : 1));
    this.chrome.depth.value = String(d);
    await this.change((i, s) => states.stateAtDepth(i, d, s), this.context());
  }

  /** After a change of the whole graph: keep the item the user moved the view to, else show the top. */
  private context(): ViewTarget {
    if (this.visible === null || this.layout === null || !this.camera.userMoved) return { kind: "overview" };
    const rects = this.layout.rects;
    const items: { id: string; rect: Rect }[] = [];
    for (const id of this.visible.items.keys()) {
      const rect = rects[id];
      if (rect !== undefined) items.push({ id, rect });
    }
    return { kind: "context", anchor: lookingAt(items, this.camera.frame(), this.camera.view()) };
  }

  private async toggle(id: string): Promise<void> {
    const before = this.state;
    await this.change((i, s) => states.toggle(i, s, id), this.anchoredAt(id, id));
    const after = this.state;
    if (before !== null && after !== null && after !== before) {
      const how = after.unfolded.size > before.unfolded.size ? "unfold" : after.open.has(id) ? "open" : "close";
      this.hooks.toggled?.(id, how);
    }
  }

  /**
   * Opens module `id` (and what hides it), closes it, or unfolds the run holding it, keeping its
   * box where it is on screen: the other pane's answer to a +/− (side-by-side.ts).
   */
  async setOpen(id: string, how: OpenChange): Promise<void> {
    if (this.index === null || this.state === null || !this.index.modules.has(id)) return;
    const drawn = this.visible?.moduleOwner.get(id) ?? id;
    await this.change((i, s) => {
      if (how === "close") {
        const next = new Set(s.open);
        next.delete(id);
        return { ...s, open: next };
      }
      const shown = states.reveal(i, s, id);
      return how === "unfold" ? shown : { ...shown, open: new Set([...shown.open, id]) };
    }, this.anchoredAt(drawn, id));
  }

  /** Folds the unfolded run that module `id` belongs to; its "×N" box takes the place of `id`. */
  private async refold(id: string): Promise<void> {
    const key = this.index?.foldOf.get(id);
    await this.change((i, s) => states.refold(i, s, id), key === undefined ? { kind: "keep" } : this.anchoredAt(id, key));
  }

  /** A view target that keeps the box drawn as `drawn` where it is on screen, as `box` after the change. */
  private anchoredAt(drawn: string, box: string): ViewTarget {
    const rect = this.layout?.rects[drawn];
    if (rect === undefined) return { kind: "keep" };
    return { kind: "anchor", anchor: this.camera.anchorOf(box, rect) };
  }

  /** Selects `id` (a node or module): opens what hides it, centres it and shows its details. */
  async select(id: string): Promise<void> {
    if (this.index === null || this.state === null) return;
    if (!this.index.nodes.has(id) && !this.index.modules.has(id)) return;
    this.selected = id;
    this.selectEdge(null);
    this.showDetails(id);
    this.applyLineage();
    const revealed = states.reveal(this.index, this.state, id);
    if (revealed.open.size !== this.state.open.size || revealed.unfolded.size !== this.state.unfolded.size) {
      this.state = revealed;
      await this.relayout({ kind: "center", id });
    } else {
      this.centerOn(id);
      this.drawSelectionOutline();
    }
  }

  private setTheme(t: ThemeOption): void {
    this.themeOption = t;
    this.applyTheme();
    this.redraw();
  }

  private destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.generation++;
    if (this.filling !== 0) this.chrome.root.ownerDocument.defaultView?.cancelAnimationFrame(this.filling);
    for (const c of this.cleanups) c();
    this.chrome.root.remove();
    if (this.client !== null) releaseLayoutClient();
    this.client = null;
  }

  // ---- layout and drawing --------------------------------------------------------------

  private async relayout(target: ViewTarget): Promise<void> {
    const index = this.index;
    const state = this.state;
    const client = this.client;
    if (index === null || state === null || client === null) return;
    const generation = ++this.generation;
    const visible = computeVisibleGraph(index, state);
    if (this.unchecked !== null) this.checkDrawn(index, visible);
    // On a big graph each step is a task of its own, so input is handled between them.
    const big = visible.items.size > SPLIT_ABOVE;
    if (big && !(await this.nextTask(() => generation === this.generation))) return;
    const { graph, looks, headers } = sizeVisibleGraph(index, visible, this.measure);
    if (big && !(await this.nextTask(() => generation === this.generation))) return;
    const timer = setTimeout(() => {
      if (generation === this.generation) this.chrome.progress.hidden = false;
    }, PROGRESS_DELAY_MS);
    mark("layout-requested");
    let result: LayoutResult;
    try {
      result = await client.layout(graph);
    } finally {
      clearTimeout(timer);
      if (generation === this.generation) this.chrome.progress.hidden = true;
    }
    if (generation !== this.generation || this.destroyed) return;
    if (big && !(await this.nextTask(() => generation === this.generation))) return;
    this.visible = visible;
    this.layout = result;
    this.camera.setGraphSize(result.width, result.height);
    this.looks = looks;
    this.headers = headers;
    this.chrome.root.dataset["layoutMs"] = result.stats.milliseconds.toFixed(1);
    this.chrome.root.dataset["graphvizRuns"] = String(result.stats.graphvizRuns);
    this.chrome.root.dataset["items"] = String(visible.items.size);
    mark("layout-received");
    this.redraw();
    this.applyTarget(target);
    mark("drawn");
  }

  /** Resolves in a later task: whether the viewer is still there and `current` still holds. */
  private nextTask(current: () => boolean = () => true): Promise<boolean> {
    return new Promise((resolve) => setTimeout(() => resolve(!this.destroyed && current()), 0));
  }

  /**
   * Draws the current state for the current view. A windowed draw only moves and removes what is
   * drawn; new boxes are made in the frame's animation callback (`fill`), at most FILL_PER_FRAME
   * and FILL_MS per frame, nearest the view first: a callback runs before that frame is painted, so nothing
   * shows later than before, but zooming in from the overview never builds 1,500 boxes in a frame.
   */
  private redraw(fill = false): void {
    const input = this.drawInput();
    if (input === null || this.index === null) return;
    const window = this.window.windowFor(input.visible.items.size);
    // Too many boxes in the window to paint in a frame: an overview instead (virtual-overview.ts).
    const overview = window !== null && itemsIn(input.visible, input.layout, window) > OVERVIEW_ABOVE;
    const view = this.chrome.root.ownerDocument.defaultView;
    const budget = window === null || view === null ? Infinity : fill ? FILL_PER_FRAME : 0;
    const filled = this.renderer.draw({ ...input, window: overview ? EMPTY : window }, budget, fill ? FILL_MS : Infinity);
    this.overview.show(overview ? { visible: input.visible, layout: input.layout, palette: input.palette } : null);
    if (!filled) this.fillNextFrame();
    else if (this.unfilled) {
      this.unfilled = false;
      mark("filled");
    }
    this.insight.paint();
    this.drawSelectionOutline();
    markSelectedEdge(this.chrome.svg, this.selectedEdge);
    this.applyLineage();
    this.lod.draw(input.visible, input.layout, this.theme, input.palette.background, window);
    this.minimap.draw({ visible: input.visible, layout: input.layout, depthOf: input.depthOf, palette: input.palette });
    this.hooks.drawn?.({ viewport: this.chrome.viewport, index: this.index, visible: input.visible, layout: input.layout, palette: input.palette });
  }

  private fillNextFrame(): void {
    this.unfilled = true;
    const view = this.chrome.root.ownerDocument.defaultView;
    if (this.filling !== 0 || view === null) return;
    this.filling = view.requestAnimationFrame(() => {
      this.filling = 0;
      if (!this.destroyed) this.redraw(true);
    });
  }

  private drawInput(): DrawInput | null {
    if (this.visible === null || this.layout === null || this.index === null) return null;
    const index = this.index;
    return {
      visible: this.visible,
      layout: this.layout,
      looks: this.looks,
      headers: this.headers,
      depthOf: (id) => index.moduleDepth.get(id) ?? 0,
      palette: this.palette(),
      markerId: this.markerId,
    };
  }

  /** The camera, for views that move several viewers together. */
  cameraOf(): Camera {
    return this.camera;
  }

  /** The whole graph drawn apart from the page, for an export of a graph drawn by window. */
  private wholeDrawing(): SVGGElement {
    const g = this.container.ownerDocument.createElementNS("http://www.w3.org/2000/svg", "g");
    const input = this.drawInput();
    if (input === null || this.index === null) return g;
    new GraphRenderer(g).draw({ ...input, window: null });
    // Decorated as the page's drawing is (diff marks), which exports show too.
    this.hooks.drawn?.({ viewport: g, index: this.index, visible: input.visible, layout: input.layout, palette: input.palette });
    return g;
  }

  private drawSelectionOutline(): void {
    this.renderer.drawSelection(this.selectedRect(), this.palette());
  }

  private selectedRect(): Rect | null {
    if (this.selected === null || this.visible === null || this.layout === null) return null;
    const owner = this.visible.nodeOwner.get(this.selected) ?? this.visible.moduleOwner.get(this.selected) ?? null;
    return owner === null ? null : (this.layout.rects[owner] ?? null);
  }

  private applyTarget(target: ViewTarget): void {
    if (this.layout === null) return;
    switch (target.kind) {
      case "fit":
        this.camera.fit();
        break;
      case "overview":
        this.camera.overview(this.leafRects(), this.startRect(), this.openRects());
        break;
      case "context": {
        const a = target.anchor;
        const owner = a === null || this.visible === null ? undefined : (this.visible.nodeOwner.get(a.id) ?? this.visible.moduleOwner.get(a.id));
        const rect = owner === undefined || owner === null ? undefined : this.layout.rects[owner];
        // A graph that now fits at a readable zoom is shown whole, as at first.
        if (a !== null && rect !== undefined && this.camera.fitScale() < READABLE_SCALE) {
          this.camera.keepAt({ ...a, id: owner as string }, rect);
          this.camera.apply(clampFrame(this.camera.frame(), this.layout, this.camera.view()));
          // A box that opened wide may hold nothing where its corner was: show its header and top.
          if (countInView(this.leafRects(), this.camera.frame(), this.camera.view()) === 0) this.camera.centerOn(rect, this.leafRects());
        } else this.camera.overview(this.leafRects(), this.startRect(), this.openRects());
        break;
      }
      case "focus":
        // A small graph is shown whole (the failed node stands out); a large one centred on it.
        if (this.camera.fitScale() >= READABLE_SCALE) this.camera.fit();
        else this.centerOn(target.id);
        break;
      case "center":
        this.centerOn(target.id);
        break;
      case "anchor": {
        const rect = this.layout.rects[target.anchor.id];
        if (rect !== undefined) this.camera.keepAt(target.anchor, rect);
        break;
      }
      case "keep":
        break;
      default:
        unhandled(target);
    }
    // Whatever was asked, a view the viewer chose never shows only empty canvas.
    if (target.kind !== "keep" && countInView(this.leafRects(), this.camera.frame(), this.camera.view()) === 0) {
      this.camera.overview(this.leafRects(), this.startRect(), this.openRects());
    }
  }

  /** The rectangles of the drawn nodes and closed boxes. */
  private leafRects(): Rect[] {
    return this.rectsOf(this.visible?.items.keys());
  }

  /** The frames of the open modules. */
  private openRects(): Rect[] {
    return this.rectsOf(this.visible?.containers.keys());
  }

  /** The laid-out rectangles of `ids` (those that have one). */
  private rectsOf(ids: Iterable<string> | undefined): Rect[] {
    const out: Rect[] = [];
    if (ids === undefined || this.layout === null) return out;
    for (const id of ids) {
      const rect = this.layout.rects[id];
      if (rect !== undefined) out.push(rect);
    }
    return out;
  }

  /** Where the graph starts: the drawn box of its first input, if any. */
  private startRect(): Rect | null {
    if (this.index === null || this.visible === null || this.layout === null) return null;
    for (const node of this.index.doc.nodes) {
      if (node.kind !== "input") continue;
      const owner = this.visible.nodeOwner.get(node.id);
      const rect = owner === null || owner === undefined ? undefined : this.layout.rects[owner];
      if (rect !== undefined) return rect;
    }
    return null;
  }

  /** Centres the drawn box that shows `id` (itself, or the closed box hiding it). */
  private centerOn(id: string): void {
    if (this.visible === null || this.layout === null) return;
    const owner = this.visible.nodeOwner.get(id) ?? this.visible.moduleOwner.get(id) ?? null;
    const rect = owner === null ? undefined : this.layout.rects[owner];
    if (rect !== undefined) this.camera.centerOn(rect, this.leafRects());
  }

  // ---- panels, events, theme -----------------------------------------------------------

  private showDetails(id: string): void {
    const index = this.index;
    if (index === null) return;
    const node = index.nodes.get(id);
    const panel = this.chrome.detailsContent;
    if (node !== undefined) {
      showNode(panel, index, node);
      appendInsight(panel, index, id, [id]);
    } else {
      const module = index.modules.get(id);
      if (module === undefined) return;
      const item = this.visible?.items.get(id);
      const members = item?.type === "box" ? item.members : [id];
      showModule(panel, index, module, members);
      appendInsight(panel, index, id, members);
    }
    this.hooks.details?.(panel, id);
    // The panel narrows the graph area before the ResizeObserver says so: a jump frames the new size.
    if (this.chrome.details.hidden) this.camera.remeasure();
    this.chrome.details.hidden = false;
  }

  private wireEvents(): void {
    const c = this.chrome;
    c.toolbar.addEventListener("click", (event) => {
      const b = (event.target as Element).closest<HTMLButtonElement>("button[data-action]");
      const action = toolbarAction(b?.dataset["action"]);
      if (action !== null) void this.onAction(action);
    });
    c.details.querySelector("button[data-action=close-details]")?.addEventListener("click", () => {
      c.details.hidden = true;
      this.selected = null;
      this.selectEdge(null);
      this.drawSelectionOutline();
      this.applyLineage();
    });
    c.depth.addEventListener("change", () => void this.setDepth(Number(c.depth.value)));
    wireGraph(c.svg, {
      toggle: (id) => this.toggle(id),
      refold: (id) => this.refold(id),
      pick: (id) => this.pick(id),
      foldedBox: (id) => this.index?.foldOf.get(id) ?? id,
    });
    this.cleanups.push(wireEdges(c.svg, (x, y) => this.edgeAt(x, y), (id) => this.pickEdge(id)));
    this.cleanups.push(
      wireKeys(c.root, c.canvas, c.svg, {
        move: (where) => void this.moveSelection(where),
        open: () => void this.openSelected(),
        close: () => void this.closeSelected(),
        lineage: (d) => {
          if (this.selected !== null) this.lineage.toggle(d);
        },
        escape: () => this.escape(),
        fit: () => {
          if (this.layout !== null) this.camera.fit();
        },
        zoom: (k) => this.camera.zoomBy(k),
        search: () => c.search.focus(),
      }),
    );
  }

  /** The drawn edge within reach of a screen point: see EDGE_REACH. */
  private edgeAt(clientX: number, clientY: number): Element | null {
    const m = this.chrome.viewport.getScreenCTM();
    if (m === null || m.a === 0) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return this.renderer.edgeNear(p.x, p.y, EDGE_REACH);
  }

  private applyLineage(): void {
    this.lineage.apply(this.chrome.svg, this.visible, this.selected);
  }

  /** Escape: the lineage highlight first, then the selection. */
  private escape(): boolean {
    if (this.lineage.clear()) return true;
    if (this.selected === null && this.selectedEdge === null) return false;
    this.selected = null;
    this.selectEdge(null);
    this.chrome.details.hidden = true;
    this.drawSelectionOutline();
    this.applyLineage();
    return true;
  }

  private async moveSelection(where: Move): Promise<void> {
    if (this.index === null || this.visible === null) return;
    const from = this.selected ?? this.selectedEdgeEnd(where);
    if (from === null) {
      // Nothing selected yet: start at the first input, where reading a graph starts.
      const first = this.index.doc.nodes.find((n) => n.kind === "input") ?? this.index.doc.nodes[0];
      if (first !== undefined) await this.select(first.id);
      return;
    }
    const to = this.selected === null ? from : move(this.index, this.visible, from, where);
    if (to !== null) await this.select(to);
  }

  /** From a selected edge, ↑ goes to its producer and the other arrows to its consumer. */
  private selectedEdgeEnd(where: Move): string | null {
    const edge = this.selectedEdge === null ? undefined : this.visible?.edges.find((e) => e.id === this.selectedEdge);
    if (edge === undefined) return null;
    return where === "producer" ? edge.source : edge.target;
  }

  /** Enter: opens the selected closed module. */
  private async openSelected(): Promise<void> {
    const id = this.selected;
    if (id === null || this.visible === null) return;
    const item = this.visible.items.get(this.visible.moduleOwner.get(id) ?? "");
    if (item?.type === "box") await this.toggle(item.id);
  }

  /** Backspace: closes the selected open module, or the module the selection is drawn in. */
  private async closeSelected(): Promise<void> {
    const id = this.selected;
    if (id === null || this.visible === null || this.index === null) return;
    let target: string | null = this.visible.containers.has(id) ? id : null;
    if (target === null) {
      const owner = this.visible.nodeOwner.get(id) ?? this.visible.moduleOwner.get(id) ?? null;
      const item = owner === null ? undefined : this.visible.items.get(owner);
      target = item?.container ?? null;
    }
    // The model's own box stays open: closing it would leave a single box.
    if (target === null || target === this.index.root) return;
    await this.toggle(target);
    this.pick(target);
  }

  private pick(id: string): void {
    this.selected = id;
    this.selectEdge(null);
    this.drawSelectionOutline();
    this.showDetails(id);
    this.applyLineage();
    this.hooks.picked?.(id);
  }

  /** Shows the tensors of the drawn edge `id` in the details panel and highlights it. */
  private pickEdge(id: string): void {
    const edge = this.visible?.edges.find((e) => e.id === id);
    if (edge === undefined || this.index === null) return;
    this.selected = null;
    this.drawSelectionOutline();
    this.selectEdge(id);
    this.applyLineage();
    showEdge(this.chrome.detailsContent, this.index, edge);
    this.hooks.edgeDetails?.(this.chrome.detailsContent, edge);
    this.chrome.details.hidden = false;
  }

  /**
   * Selects the drawn edge that carries the document edge from node `source` to node `target`
   * (opening what hides `target`, then as a click on the edge does).
   */
  async selectEdgeBetween(source: string, target: string): Promise<void> {
    await this.select(target);
    const from = this.visible?.nodeOwner.get(source);
    const to = this.visible?.nodeOwner.get(target);
    if (from === null || from === undefined || to === null || to === undefined) return;
    this.pickEdge(`${from}>${to}`);
  }

  private selectEdge(id: string | null): void {
    this.selectedEdge = id;
    markSelectedEdge(this.chrome.svg, id);
  }

  private async onAction(action: ToolbarAction): Promise<void> {
    switch (action) {
      case "zoom-in":
        this.camera.zoomBy(1.25);
        break;
      case "zoom-out":
        this.camera.zoomBy(0.8);
        break;
      case "fit":
        if (this.layout !== null) this.camera.fit();
        if (this.layout !== null && this.camera.fitScale() < UNREADABLE_SCALE) this.minimap.offer();
        break;
      case "toggle-minimap": {
        this.minimap.setShown(!this.minimap.shown);
        const b = this.chrome.toolbar.querySelector("button[data-action=toggle-minimap]");
        b?.setAttribute("aria-pressed", String(this.minimap.shown));
        break;
      }
      case "open-modules":
        await this.handle().openModules();
        break;
      case "expand-all":
        await this.handle().expandAll();
        break;
      case "collapse-all":
        await this.handle().collapseAll();
        break;
      case "export-svg":
        download(new Blob([exportSvgString(this.exportSource())], { type: "image/svg+xml" }), this.fileName("svg"));
        break;
      case "export-png":
        download(await exportPng(this.exportSource()), this.fileName("png"));
        break;
      case "export-pdf":
        download(await exportPdf(this.exportSource()), this.fileName("pdf"));
        break;
      case "toggle-theme":
        this.setTheme(this.theme === "dark" ? "light" : "dark");
        break;
      default:
        unhandled(action);
    }
  }

  private fileName(ext: string): string {
    const root = this.index?.modules.get(this.index.root);
    const base = (root?.class_name ?? "graph").replace(/[^\p{L}\p{N}_.-]+/gu, "_") || "graph";
    return `${base}.${ext}`;
  }

  private exportSource(): ExportSource {
    return {
      viewport: this.window.active ? this.wholeDrawing() : this.chrome.viewport,
      width: this.layout?.width ?? 0,
      height: this.layout?.height ?? 0,
      background: this.palette().background,
      font: this.textFont,
    };
  }

  private palette(): Palette {
    return PALETTES[this.theme];
  }

  private applyTheme(): void {
    this.theme = resolveTheme(this.themeOption, this.container.ownerDocument);
    this.chrome.root.dataset["theme"] = this.theme;
    fillLegend(this.chrome.legend, this.palette());
    this.hooks.legend?.(this.chrome.legend, this.palette());
    this.hooks.themed?.(this.theme);
  }

  private watchTheme(): void {
    const onChange = (): void => {
      if (this.themeOption !== "auto") return;
      const before = this.theme;
      this.applyTheme();
      if (before !== this.theme) this.redraw();
    };
    this.cleanups.push(watchHostTheme(this.container.ownerDocument, onChange));
  }

  /** Checks the document's nodes and edges that `visible` draws, before they are drawn. */
  private checkDrawn(index: GraphIndex, visible: VisibleGraph): void {
    const unchecked = this.unchecked as ViewRead;
    const nodes: number[] = [];
    for (const item of visible.items.values()) {
      const at = item.type === "node" ? drawnNodeAt(index, item.id) : undefined;
      if (at !== undefined) nodes.push(at);
    }
    unchecked.checkItems("nodes", nodes);
    unchecked.checkItems("edges", visible.edges.flatMap((e) => e.edges));
  }

  /** After the first draw: the rest of the document's check, in slices that leave the page responsive. */
  private async checkRest(): Promise<void> {
    const unchecked = this.unchecked;
    if (unchecked === null || this.destroyed) return;
    await afterPaint();
    await unchecked.checkRest(() => this.nextTask(), CHECK_SLICE_MS);
    this.unchecked = null;
    mark("document-checked");
  }

  private fail(error: unknown): void {
    // Before the document is checked in full, a failure may come from a malformed part: that is what is reported.
    if (this.unchecked !== null) error = this.unchecked.explain(error);
    this.unchecked = null;
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof DocumentError && this.index !== null) {
      // Found after the first draw: nothing of the document stays drawn or answers clicks.
      this.generation++;
      this.index = null;
      this.state = null;
      for (const child of this.chrome.canvas.children) (child as HTMLElement | SVGElement).style.display = "none";
      this.chrome.details.hidden = true;
    }
    this.chrome.root.dataset["state"] = "error-rendering";
    const box = document.createElement("div");
    box.className = "vista-message";
    box.textContent = `Vista could not draw this graph: ${message}`;
    this.chrome.canvas.appendChild(box);
    this.rejectReady(error instanceof Error ? error : new Error(message));
  }
}

/** Resolves once the page has painted what was drawn (or after 100 ms where frames do not come, as in a hidden tab). */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });
}

export function mount(container: HTMLElement, document: unknown, options: ViewerOptions = {}, page: PageResources = {}): ViewerHandle {
  if (!(container instanceof HTMLElement)) {
    throw new TypeError(`VistaViewer.mount: "container" must be an HTMLElement, got ${String(container)}.`);
  }
  const packed = page?.textFont;
  const font = typeof packed === "string" && packed !== "" ? loadTextFont(packed, container.ownerDocument) : null;
  if (isDiffDocument(document)) return mountDiff(container, document, options ?? {}, font);
  return new Viewer(container, document, options ?? {}, {}, font).handle();
}
