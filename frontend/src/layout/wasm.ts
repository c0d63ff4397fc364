/**
 * Page side of Graphviz's WebAssembly: the bytes are embedded in the bundle as base64 text
 * (cheap to parse; decoded only when needed) and compiled once per page with
 * `WebAssembly.compile`, which runs off the main thread. The compiled module is posted to the
 * layout worker, so the worker never parses or compiles the WASM itself.
 */
import wasmBase64 from "vista:graphviz-wasm";

let compiled: Promise<WebAssembly.Module> | null = null;

/** Graphviz's WASM bytes, decoded from the embedded base64. */
export function graphvizWasmBytes(): Uint8Array<ArrayBuffer> {
  const raw = atob(wasmBase64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** The compiled Graphviz module, started on the first call and shared afterwards. */
export function compileGraphviz(): Promise<WebAssembly.Module> {
  if (compiled === null) compiled = WebAssembly.compile(graphvizWasmBytes());
  return compiled;
}
