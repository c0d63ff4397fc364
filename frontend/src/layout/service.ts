/**
 * The layout service: answers `ToWorker` messages with `FromWorker` messages. The same code
 * runs inside the Web Worker and, when workers are unavailable, on the page.
 */
import { instance } from "@viz-js/viz";
import { LayoutEngine } from "./engine";
import type { FromWorker, ToWorker } from "./types";

export type Post = (message: FromWorker) => void;

export function createLayoutService(post: Post): (message: ToWorker) => void {
  const engine = instance().then((viz) => {
    const engine = new LayoutEngine((dot) => {
      const result = viz.render(dot, { format: "json0", yInvert: true });
      if (result.status !== "success") {
        const detail = result.errors.map((e) => e.message).join("; ");
        throw new Error(`Graphviz failed to lay out a module: ${detail}`);
      }
      return result.output;
    });
    post({ type: "ready" });
    return engine;
  });
  // Requests are answered in order; a failure answers its own request only.
  let queue: Promise<unknown> = engine;
  return (message) => {
    if (message.type !== "layout") return;
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
