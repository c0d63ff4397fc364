/**
 * The page side of the layout protocol. One client is shared by every viewer of the page, so
 * Graphviz is compiled once and identical modules are laid out once across viewers.
 *
 * First view: the layout service (the embedded worker bundle) starts on the page as soon as
 * the bundle runs, and Graphviz's WebAssembly is inflated and compiled (the compilation runs
 * off the main thread) before the viewer reads its graph document. The layouts of the first
 * view are done there, on the page: a Web Worker would first have to start (tens of ms, and
 * much longer while the page's main thread is busy) and compete for the same CPU.
 *
 * Afterwards: once the first layout is answered, the layout worker is started from a Blob URL
 * holding the same bundle and handed the compiled module (its code is shared, including what
 * the first view compiled); every later request goes to it, so big layouts (Expand all) never
 * block the page. Where workers or Blob URLs are unavailable (or the worker fails to start) the
 * page keeps serving every request.
 */
import workerSource from "vista:layout-worker";
import { viewerAssets } from "../assets";
import { mark } from "../perf";
import { packGraph, unpackResult } from "./packed";
import type { FromWorker, LayoutGraph, LayoutResult, ToWorker } from "./types";

type Pending = { resolve: (r: LayoutResult) => void; reject: (e: Error) => void; message: ToWorker };
type Handler = (message: ToWorker) => void;

export class LayoutClient {
  /** The layout service running on the page, while it serves requests. */
  private page: Handler | null = null;
  /** Requests sent to the page service and not answered yet. */
  private readonly onPage = new Set<number>();
  private worker: Worker | null = null;
  private workerReady = false;
  private workerTried = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private module: WebAssembly.Module | null = null;
  private destroyed = false;

  /** Graphviz's WebAssembly as the page passed it (deflate + base64; see ../assets.ts). */
  private readonly wasmBase64: string;

  constructor() {
    this.wasmBase64 = viewerAssets().graphviz;
    try {
      this.page = this.startOnPage();
    } catch {
      // eval is refused (a Content-Security-Policy without 'unsafe-eval'): the worker does it all.
      this.page = null;
    }
    // At once (not a task later like requests): decoding starts while the bundle still runs.
    if (this.page !== null) this.page({ type: "wasm", base64: this.wasmBase64 });
    else this.startWorker({ type: "wasm", base64: this.wasmBase64 });
  }

  layout(graph: LayoutGraph): Promise<LayoutResult> {
    const requestId = this.nextId++;
    return new Promise<LayoutResult>((resolve, reject) => {
      if (this.worker !== null) {
        const message: ToWorker = { type: "layout-packed", requestId, graph: packGraph(graph) };
        this.pending.set(requestId, { resolve, reject, message });
        this.worker.postMessage(message);
        return;
      }
      const message: ToWorker = { type: "layout", requestId, graph };
      this.pending.set(requestId, { resolve, reject, message });
      if (this.page !== null) {
        this.onPage.add(requestId);
        this.toPage(message);
      } else {
        this.pending.delete(requestId);
        reject(new Error("Graphviz could not start: this page allows neither Web Workers nor eval."));
      }
    });
  }

  destroy(): void {
    this.destroyed = true;
    this.worker?.terminate();
    this.worker = null;
    this.page = null;
    for (const p of this.pending.values()) p.reject(new Error("The viewer was destroyed."));
    this.pending.clear();
  }

  private toPage(message: ToWorker): void {
    // Asynchronous like a worker, so callers see the same ordering either way.
    setTimeout(() => this.page?.(message), 0);
  }

  private receive(message: FromWorker, fromWorker: boolean): void {
    if (message.type === "module") {
      this.module = message.module;
      return;
    }
    if (message.type === "wasm-refused") {
      this.worker?.postMessage({ type: "wasm", base64: this.wasmBase64 } satisfies ToWorker);
      return;
    }
    if (message.type === "ready") {
      if (fromWorker) {
        this.workerReady = true;
        mark("worker-ready");
        this.dropPage();
      } else if (message.timings !== undefined) {
        mark("layout-code-started", message.timings.started - performance.timeOrigin);
        mark("graphviz-ready", message.timings.compiled - performance.timeOrigin);
      }
      return;
    }
    const p = this.pending.get(message.requestId);
    if (p === undefined) return;
    this.pending.delete(message.requestId);
    if (message.type === "result") {
      // Before unpacking: the benchmark tells the worker's time from the page's by it.
      mark("layout-arrived");
      p.resolve(unpackResult(message.result));
    } else p.reject(new Error(message.message));
    if (!fromWorker) {
      this.onPage.delete(message.requestId);
      // After the first view is drawn (the resolution above runs first): the worker.
      const module = this.module;
      if (!this.workerTried && module !== null) setTimeout(() => this.startWorker({ type: "wasm", module }), 0);
      this.dropPage();
    }
  }

  /** The page service goes once the worker serves and nothing waits on the page. */
  private dropPage(): void {
    if (this.workerReady && this.onPage.size === 0) this.page = null;
  }

  private startWorker(wasm: ToWorker & { type: "wasm" }): void {
    if (this.destroyed || this.workerTried) return;
    this.workerTried = true;
    if (typeof Worker === "undefined" || typeof Blob === "undefined" || typeof URL.createObjectURL !== "function") return;
    let url: string | null = null;
    let worker: Worker | null = null;
    try {
      url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
      mark("worker-create");
      worker = new Worker(url);
      const started = worker;
      const blobUrl = url;
      started.onmessage = (event: MessageEvent<FromWorker>) => {
        if (!this.workerReady) URL.revokeObjectURL(blobUrl);
        this.receive(event.data, true);
      };
      started.onerror = (event) => {
        event.preventDefault();
        // A worker that dies before it is ready (blocked Blob URLs, CSP): the page serves on.
        if (!this.workerReady) this.workerFailed(started);
      };
      started.postMessage(wasm);
      this.worker = started;
    } catch {
      if (worker !== null) this.workerFailed(worker);
      else if (url !== null) URL.revokeObjectURL(url);
    }
  }

  private workerFailed(worker: Worker): void {
    worker.terminate();
    if (this.worker === worker) this.worker = null;
    if (this.page === null && !this.destroyed) {
      try {
        this.page = this.startOnPage();
        this.toPage(this.module !== null ? { type: "wasm", module: this.module } : { type: "wasm", base64: this.wasmBase64 });
      } catch {
        this.page = null;
      }
    }
    // What the worker had not answered goes to the page (or fails, when there is none).
    for (const [id, p] of this.pending) {
      if (this.onPage.has(id)) continue;
      if (this.page === null) {
        this.pending.delete(id);
        p.reject(new Error("Graphviz could not start: this page allows neither Web Workers nor eval."));
        continue;
      }
      this.onPage.add(id);
      this.toPage(p.message);
    }
  }

  private startOnPage(): Handler | null {
    let handler: Handler | null = null;
    const host = {
      connect: (factory: (post: (m: FromWorker) => void) => Handler): void => {
        handler = factory((m) => this.receive(m, false));
      },
    };
    // The worker bundle is our own build output, embedded at build time (not document data).
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    new Function("__vistaLayoutHost", workerSource)(host);
    return handler;
  }
}

let shared: LayoutClient | null = null;
let users = 0;

/**
 * Starts the page's layout client (the layout service and Graphviz's compilation) ahead of the
 * first mount, so that it boots while the page parses the graph document. Called when the
 * bundle loads.
 */
export function prewarmLayoutClient(): void {
  if (shared === null) shared = new LayoutClient();
}

/** The page's layout client; `release` when a viewer is destroyed. */
export function acquireLayoutClient(): LayoutClient {
  if (shared === null) shared = new LayoutClient();
  users++;
  return shared;
}

export function releaseLayoutClient(): void {
  users = Math.max(0, users - 1);
  if (users === 0 && shared !== null) {
    shared.destroy();
    shared = null;
  }
}
