/**
 * Graphviz's WebAssembly, on the side that runs Graphviz (the layout worker, or the page where
 * there is no worker). The bundle carries it deflate-compressed as base64 text (see
 * scripts/build.mjs); the page posts that text to the worker as soon as the worker exists, and
 * the worker decodes, inflates and compiles it itself (streaming where the browser can), so
 * none of this waits for or occupies the page's main thread.
 */
import { base64Bytes, inflateRaw } from "../bytes";

/** Compiles the embedded (deflate + base64) WASM, compiling while it inflates where possible. */
export async function compileGraphviz(base64: string): Promise<WebAssembly.Module> {
  const bytes = base64Bytes(base64);
  if (typeof WebAssembly.compileStreaming === "function") {
    try {
      const response = new Response(inflateRaw(bytes), { headers: { "Content-Type": "application/wasm" } });
      return await WebAssembly.compileStreaming(response);
    } catch {
      // Some engines refuse a constructed Response: compile from the bytes below.
    }
  }
  return WebAssembly.compile(await new Response(inflateRaw(bytes)).arrayBuffer());
}
