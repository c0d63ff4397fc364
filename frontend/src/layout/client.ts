/**
 * The page side of the layout protocol. Starts the layout worker from a Blob URL holding the
 * embedded worker bundle; where workers or Blob URLs are unavailable (or the worker fails to
 * start) the same bundle runs on the page. One client is shared by every viewer of the page,
 * so Graphviz is compiled once and identical modules are laid out once across viewers.
 *
 * Graphviz's WebAssembly is compiled here (`WebAssembly.compile`, off the main thread) while the
 * small worker script starts, and the compiled module is posted to the worker: the WASM is
 * never parsed as script text nor compiled twice.
 */
import workerSource from "vista:layout-worker";
import { mark } from "../perf";
import type { FromWorker, LayoutGraph, LayoutResult, ToWorker } from "./types";
import { compileGraphviz, graphvizWasmBytes } from "./wasm";

type Pending = { resolve: (r: LayoutResult) => void; reject: (e: Error) => void; message: ToWorker };

export class LayoutClient {
  private send: (message: ToWorker) => void = () => undefined;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private ready = false;
  private wasm: WebAssembly.Module | null = null;
  mode: "worker" | "main-thread" = "worker";

  constructor() {
    // The worker thread boots while the page decodes and compiles the WASM.
    if (!this.startWorker()) this.startOnPage();
    compileGraphviz().then(
      (module) => {
        this.wasm = module;
        this.sendWasm();
      },
      (error: unknown) => this.failAll(error),
    );
  }

  layout(graph: LayoutGraph): Promise<LayoutResult> {
    const requestId = this.nextId++;
    const message: ToWorker = { type: "layout", requestId, graph };
    return new Promise<LayoutResult>((resolve, reject) => {
      this.pending.set(requestId, { resolve, reject, message });
      this.send(message);
    });
  }

  destroy(): void {
    this.worker?.terminate();
    this.worker = null;
    for (const p of this.pending.values()) p.reject(new Error("The viewer was destroyed."));
    this.pending.clear();
  }

  /** Hands the compiled module to the worker (or the page service); bytes where it cannot be posted. */
  private sendWasm(): void {
    if (this.wasm === null) return;
    try {
      this.send({ type: "wasm", wasm: this.wasm });
    } catch {
      this.sendWasmBytes();
    }
  }

  private sendWasmBytes(): void {
    graphvizWasmBytes().then(
      (bytes) => this.send({ type: "wasm", wasm: bytes }),
      (error: unknown) => this.failAll(error),
    );
  }

  private failAll(error: unknown): void {
    const e = new Error(`Graphviz could not start: ${error instanceof Error ? error.message : String(error)}`);
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  private receive(message: FromWorker): void {
    if (message.type === "wasm-refused") {
      this.sendWasmBytes();
      return;
    }
    if (message.type === "ready") {
      this.ready = true;
      if (message.timings !== undefined) {
        mark("layout-code-started", message.timings.started - performance.timeOrigin);
        mark("graphviz-ready", message.timings.compiled - performance.timeOrigin);
      }
      return;
    }
    const p = this.pending.get(message.requestId);
    if (p === undefined) return;
    this.pending.delete(message.requestId);
    if (message.type === "result") p.resolve(message.result);
    else p.reject(new Error(message.message));
  }

  private startWorker(): boolean {
    if (typeof Worker === "undefined" || typeof Blob === "undefined" || typeof URL.createObjectURL !== "function") {
      return false;
    }
    let url: string | null = null;
    try {
      url = URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" }));
      mark("worker-create");
      const worker = new Worker(url);
      const blobUrl = url;
      worker.onmessage = (event: MessageEvent<FromWorker>) => {
        if (!this.ready) URL.revokeObjectURL(blobUrl);
        this.receive(event.data);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        // A worker that dies before it is ready (blocked Blob URLs, CSP): run on the page.
        if (!this.ready) {
          worker.terminate();
          this.worker = null;
          this.startOnPage();
          this.sendWasm();
          for (const p of this.pending.values()) this.send(p.message);
        }
      };
      this.worker = worker;
      this.send = (message) => worker.postMessage(message);
      this.mode = "worker";
      return true;
    } catch {
      if (url !== null) URL.revokeObjectURL(url);
      return false;
    }
  }

  private startOnPage(): void {
    this.mode = "main-thread";
    let handler: ((message: ToWorker) => void) | null = null;
    const host = {
      connect: (factory: (post: (m: FromWorker) => void) => (m: ToWorker) => void): void => {
        handler = factory((m) => this.receive(m));
      },
    };
    // The worker bundle is our own build output, embedded at build time (not document data).
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    new Function("__vistaLayoutHost", workerSource)(host);
    this.send = (message) => {
      // Asynchronous like a worker, so callers see the same ordering either way.
      setTimeout(() => handler?.(message), 0);
    };
  }
}

let shared: LayoutClient | null = null;
let users = 0;

/**
 * Starts the page's layout client (worker and Graphviz compilation) ahead of the first mount,
 * so that it boots while the page parses the graph document. Called when the bundle loads.
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
