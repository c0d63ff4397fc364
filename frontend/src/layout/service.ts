/**
 * The layout service: answers `ToWorker` messages with `FromWorker` messages. The same code
 * runs inside the Web Worker and, when workers are unavailable, on the page. Graphviz starts
 * as soon as the service exists and waits for its WebAssembly (the `wasm` message).
 */
import { instance } from "@viz-js/viz";
import { LayoutEngine } from "./engine";
import { provideWasm } from "./wasm-provider";
import type { FromWorker, ToWorker } from "./types";

export type Post = (message: FromWorker) => void;

const now = (): number => performance.timeOrigin + performance.now();

export function createLayoutService(post: Post): (message: ToWorker) => void {
  const started = now();
  const engine = instance().then((viz) => {
    const engine = new LayoutEngine((dot) => {
      const result = viz.render(dot, { format: "json0", yInvert: true });
      if (result.status !== "success") {
        const detail = result.errors.map((e) => e.message).join("; ");
        throw new Error(`Graphviz failed to lay out a module: ${detail}`);
      }
      return result.output;
    });
    post({ type: "ready", timings: { started, compiled: now() } });
    return engine;
  });
  // Requests are answered in order; a failure answers its own request only.
  let queue: Promise<unknown> = engine;
  return (message) => {
    if (message.type === "wasm") {
      provideWasm(message.wasm);
      return;
    }
    queue = queue
      .then(() => engine)
      .then((e) => {
        post({ type: "result", requestId: message.requestId, result: e.layout(message.graph) });
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
