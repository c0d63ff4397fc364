/**
 * Page side of Graphviz's WebAssembly: the bytes are embedded in the bundle deflate-compressed,
 * as base64 text (cheap to parse; inflated only when needed) and compiled once per page with
 * `WebAssembly.compile`, which runs off the main thread. The compiled module is posted to the
 * layout worker, so the worker never parses or compiles the WASM itself.
 */
import wasmBase64 from "vista:graphviz-wasm";

let compiled: Promise<WebAssembly.Module> | null = null;

/** Graphviz's WASM bytes: the embedded base64 is deflate-compressed WASM (see scripts/build.mjs). */
export async function graphvizWasmBytes(): Promise<Uint8Array<ArrayBuffer>> {
  const raw = atob(wasmBase64);
  const packed = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) packed[i] = raw.charCodeAt(i);
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The compiled Graphviz module, started on the first call and shared afterwards. */
export function compileGraphviz(): Promise<WebAssembly.Module> {
  if (compiled === null) compiled = graphvizWasmBytes().then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}
