/** Modules provided by the build (scripts/build.mjs), not by files. */
declare module "vista:layout-worker" {
  /** The layout worker bundle (src/layout/worker-entry.ts) as JavaScript source text. */
  const source: string;
  export default source;
}

declare module "*.css" {
  /** The stylesheet's text, injected by the viewer into its own root element. */
  const css: string;
  export default css;
}

declare module "vista:graphviz-wasm" {
  /** Graphviz's WebAssembly binary (taken from @viz-js/viz at build time), base64-encoded. */
  const base64: string;
  export default base64;
}

declare module "vista:pdf-chunk" {
  /** The PDF chunk (src/view/pdf.ts with jsPDF and svg2pdf.js): its JavaScript, deflate-compressed, as base64. */
  const source: string;
  export default source;
}
