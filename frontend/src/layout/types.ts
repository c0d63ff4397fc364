/**
 * What the layout layer takes and gives, and the typed messages between the page and the
 * layout worker. Plain JSON-able data only: it crosses the worker boundary.
 */
import type { PackedGraph, PackedResult } from "./packed";

/** A drawn node or closed module box, sized by the view (text measured) before layout. */
export interface LayoutItemSpec {
  readonly id: string;
  readonly width: number;
  readonly height: number;
}

/** An open module: its members are laid out together and drawn inside its box. */
export interface LayoutContainerSpec {
  readonly id: string;
  readonly parent: string | null;
  /** Item ids and open child container ids, in execution order. */
  readonly members: readonly string[];
  /** Space above the contents for the header (class name, path, +/−). */
  readonly header: number;
  /** The header's own width: the box is never narrower. */
  readonly minWidth: number;
  /** Width at the right end of the header kept for its controls (+/−, fold back): no edge enters there. */
  readonly control: number;
  /** Width at the left end of the header its text takes: no edge crosses the header there (0 if absent). */
  readonly title?: number;
}

export interface LayoutEdgeSpec {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  /** Label text as drawn (shapes like 1×16×64), or "" for none. */
  readonly label: string;
}

export interface LayoutGraph {
  /** The outermost element: an open container, or a single closed box. */
  readonly root: string;
  readonly items: readonly LayoutItemSpec[];
  readonly containers: readonly LayoutContainerSpec[];
  readonly edges: readonly LayoutEdgeSpec[];
}

export interface Rect {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface EdgeRoute {
  readonly id: string;
  /** Cubic Bézier chain: start point, then (control, control, end) triples. */
  readonly points: readonly Point[];
  /** Where the label is drawn (centre), when the edge has one. */
  readonly label: (Point & { readonly text: string }) | null;
}

export interface LayoutStats {
  /** Graphviz runs this request needed (the rest came from the cache). */
  readonly graphvizRuns: number;
  readonly cacheHits: number;
  readonly milliseconds: number;
}

export interface LayoutResult {
  readonly width: number;
  readonly height: number;
  /** Top-left rectangles of every item and container, in graph coordinates. */
  readonly rects: Readonly<Record<string, Rect>>;
  readonly edges: readonly EdgeRoute[];
  readonly stats: LayoutStats;
}

/**
 * Page -> layout service (in the worker, or on the page). `wasm` comes first: Graphviz's
 * WebAssembly, either as the page hands it over (deflate + base64 text, compiled by the
 * service) or compiled already (the module the page's service compiled, handed to the
 * worker); layouts sent before Graphviz is ready wait for it.
 */
export type ToWorker =
  | { readonly type: "wasm"; readonly base64: string }
  | { readonly type: "wasm"; readonly module: WebAssembly.Module }
  | { readonly type: "layout"; readonly requestId: number; readonly graph: LayoutGraph }
  /** The same request packed (packed.ts), as the page sends it to a worker. */
  | { readonly type: "layout-packed"; readonly requestId: number; readonly graph: PackedGraph };

/** Worker -> page. */
export type FromWorker =
  | {
      readonly type: "ready";
      /** When the layout code started running and when Graphviz was ready (epoch ms). */
      readonly timings?: { readonly started: number; readonly compiled: number };
    }
  /** The page's service compiled Graphviz: the module, for the worker started later. */
  | { readonly type: "module"; readonly module: WebAssembly.Module }
  /** The worker could not receive the compiled module (it arrived as a `messageerror`): send the text. */
  | { readonly type: "wasm-refused" }
  /** The result packed (see packed.ts): its arrays are transferred, not copied. */
  | { readonly type: "result"; readonly requestId: number; readonly result: PackedResult }
  | { readonly type: "error"; readonly requestId: number; readonly message: string };
