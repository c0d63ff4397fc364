/**
 * Entry point of the layout worker bundle (built separately and embedded in the viewer as
 * text). In a Worker it listens on `self`; run on the page (for the first view, and where
 * there is no worker) it is evaluated with a `__vistaLayoutHost` parameter and connects to
 * that instead.
 */
import { createLayoutService } from "./service";
import type { FromWorker, ToWorker } from "./types";

interface LayoutHost {
  /** Called once with a factory: the host gives it its `post` and keeps the handler. */
  connect(factory: (post: (message: FromWorker, transfer?: Transferable[]) => void) => (message: ToWorker) => void): void;
}

declare const __vistaLayoutHost: LayoutHost | undefined;

interface WorkerScope {
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  onmessage: ((event: { data: ToWorker }) => void) | null;
  onmessageerror: (() => void) | null;
}

if (typeof __vistaLayoutHost !== "undefined") {
  __vistaLayoutHost.connect((post) => createLayoutService(post, { onPage: true }));
} else {
  const scope = self as unknown as WorkerScope;
  const handle = createLayoutService((message, transfer) => scope.postMessage(message, transfer ?? []), { onPage: false });
  scope.onmessage = (event) => handle(event.data);
  scope.onmessageerror = () => scope.postMessage({ type: "wasm-refused" });
}
