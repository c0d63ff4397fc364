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
