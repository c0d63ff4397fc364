/**
 * Worker side of Graphviz's WebAssembly. The build (scripts/build.mjs) takes the WASM bytes out
 * of `@viz-js/viz`'s backend (where they are a 1 MB string literal) and makes its loader call
 * these two functions instead; the layout service compiles the module from the text the page
 * posts (`wasm.ts`) and calls `provideWasm` with it.
 */

let provide: (source: Promise<WebAssembly.Module>) => void = () => undefined;
const provided = new Promise<WebAssembly.Module>((resolve) => {
  provide = resolve;
});

/** Gives Graphviz its compiled WebAssembly module. */
export function provideWasm(source: Promise<WebAssembly.Module>): void {
  provide(source);
}

/** Called by the patched backend where it would decode its embedded bytes. */
export function wasmSource(): Promise<WebAssembly.Module> {
  return provided;
}

/** Called by the patched backend instead of `WebAssembly.instantiate(binary, imports)`. */
export async function instantiateWasm(
  source: WebAssembly.Module,
  imports: WebAssembly.Imports,
): Promise<{ instance: WebAssembly.Instance; module: WebAssembly.Module }> {
  return { instance: await WebAssembly.instantiate(source, imports), module: source };
}
