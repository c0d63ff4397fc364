/**
 * Worker side of Graphviz's WebAssembly. The build (scripts/build.mjs) takes the WASM bytes out
 * of `@viz-js/viz`'s backend (where they are a 1 MB string literal that every worker would parse
 * again) and makes its loader call these two functions instead: the page compiles the module
 * once (`wasm.ts`) and hands the compiled `WebAssembly.Module` (or, failing that, the bytes) to
 * the layout service, which calls `provideWasm`.
 */

type WasmSource = WebAssembly.Module | Uint8Array<ArrayBuffer>;

let provide: (source: WasmSource) => void = () => undefined;
const provided = new Promise<WasmSource>((resolve) => {
  provide = resolve;
});

/** Gives Graphviz its WebAssembly: a compiled module (shared by the page) or the raw bytes. */
export function provideWasm(source: WasmSource): void {
  provide(source);
}

/** Called by the patched backend where it would decode its embedded bytes. */
export function wasmSource(): Promise<WasmSource> {
  return provided;
}

/** Called by the patched backend instead of `WebAssembly.instantiate(binary, imports)`. */
export async function instantiateWasm(
  source: WasmSource,
  imports: WebAssembly.Imports,
): Promise<{ instance: WebAssembly.Instance; module: WebAssembly.Module }> {
  if (source instanceof WebAssembly.Module) {
    return { instance: await WebAssembly.instantiate(source, imports), module: source };
  }
  return WebAssembly.instantiate(source as BufferSource, imports);
}
