/**
 * Graphviz's WebAssembly, compiled by the layout service wherever it runs (see client.ts): on
 * the page for the first view, which then hands the compiled module to the worker; in the
 * worker itself when the worker cannot be given a module (it asks for the text instead). The
 * page hands it over deflate-compressed as base64 text (see ../assets.ts); compiling streams
 * while it inflates, off the main thread where the browser can.
 */
import { base64Bytes, inflateRaw } from "../bytes";

/** Compiles the (deflate + base64) WASM text, compiling while it inflates where possible. */
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
