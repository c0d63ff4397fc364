/**
 * The layout service: answers `ToWorker` messages with `FromWorker` messages. The same code
 * runs on the page (the first view, and everything where there is no worker) and inside the
 * Web Worker. Graphviz starts as soon as the service exists and waits for its WebAssembly
 * (the `wasm` message).
 */
import { instance } from "@viz-js/viz";
import { dotLabel, toDot } from "./dot";
import { LayoutEngine } from "./engine";
import { unpackGraph } from "./packed";
import { compileGraphviz } from "./wasm";
import { provideWasm } from "./wasm-provider";
import type { FromWorker, ToWorker } from "./types";

/** Posts a message; `transfer` lists the buffers moved with it (not copied). */
export type Post = (message: FromWorker, transfer?: Transferable[]) => void;

const now = (): number => performance.timeOrigin + performance.now();

export interface ServiceOptions {
  /**
   * Running on the page: post the compiled module (`module`) for the worker started later, and
   * no warm-up (the first request is about to come, and the page's thread is the critical path).
   */
  readonly onPage: boolean;
}

/**
 * A small module of the kind the engine sends (fixed-size boxes, entry and exit ports, labelled
 * edges), laid out by the worker once Graphviz is ready and nothing is waiting: it compiles
 * (lazily compiled WebAssembly functions, the engine's JavaScript) what the first view did
 * not, before the first click needs it.
 */
const WARM_UP = toDot({
  elements: [
    { width: 96, height: 30 },
    { width: 180, height: 44 },
    { width: 120, height: 30 },
    { width: 64, height: 24 },
  ],
  inPorts: 1,
  outPorts: 1,
  edges: [
    { from: "i0", to: "e0", label: "" },
    { from: "e0", to: "e1", label: dotLabel("1×16") },
    { from: "e3", to: "e1", label: dotLabel("64×64, 64") },
    { from: "e1", to: "e2", label: dotLabel("1×16×64") },
    { from: "e0", to: "e2", label: "" },
    { from: "e2", to: "o0", label: "" },
  ],
});

export function createLayoutService(post: Post, options: ServiceOptions): (message: ToWorker) => void {
  const started = now();
  let requested = false;
  const engine = instance().then(
    (viz) => {
      const render = (dot: string): string => {
        const result = viz.render(dot, { format: "json0", yInvert: true });
        if (result.status !== "success") {
          const detail = result.errors.map((e) => e.message).join("; ");
          throw new Error(`Graphviz failed to lay out a module: ${detail}`);
        }
        return result.output;
      };
      const compiled = now();
      const engine = new LayoutEngine(render);
      post({ type: "ready", timings: { started, compiled } });
      if (options.onPage) return engine;
      // A task later, so that a request already queued is seen (and not delayed).
      setTimeout(() => {
        if (requested) return;
        try {
          render(WARM_UP);
        } catch {
          // Only a warm-up: a real request reports its own failure.
        }
      }, 0);
      return engine;
    },
    (error: unknown) => {
      throw new Error(`Graphviz could not start: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  engine.catch(() => undefined); // reported to each request
  // Requests are answered in order; a failure answers its own request only.
  let queue: Promise<unknown> = engine;
  return (message) => {
    if (message.type === "wasm") {
      if ("module" in message) {
        provideWasm(Promise.resolve(message.module));
      } else {
        const module = compileGraphviz(message.base64);
        provideWasm(module);
        if (options.onPage) module.then((m) => post({ type: "module", module: m }), () => undefined);
      }
      return;
    }
    requested = true;
    queue = queue
      .then(() => engine)
      .then((e) => {
        const { packed, transfer } = e.layoutPacked(message.type === "layout" ? message.graph : unpackGraph(message.graph));
        post({ type: "result", requestId: message.requestId, result: packed }, transfer);
      })
      .catch((error: unknown) => {
        post({
          type: "error",
          requestId: message.requestId,
          message: error instanceof Error ? error.message : String(error),
        });
      });
  };
}
