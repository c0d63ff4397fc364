// Builds dist/vista-viewer.js: one IIFE with the viewer, d3, jsPDF/svg2pdf, its CSS, and the
// layout worker bundle (with @viz-js/viz and its embedded WebAssembly) as text. Deterministic:
// the same sources and lockfile give the same bytes (checked by scripts/check-drift.mjs).
import * as esbuild from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, "..");

const common = {
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["es2020"],
  minify: true,
  write: false,
  logLevel: "warning",
  absWorkingDir: ROOT,
  charset: "utf8",
};

// jsPDF can load html2canvas, DOMPurify and canvg for its html()/addSvgAsImage() features,
// which the viewer never calls: leave them out instead of bundling ~1 MB of unused code.
const optionalJsPdfDeps = {
  name: "omit-unused-jspdf-features",
  setup(build) {
    build.onResolve({ filter: /^(html2canvas|dompurify|canvg)$/ }, (args) => ({ path: args.path, namespace: "omitted" }));
    build.onLoad({ filter: /.*/, namespace: "omitted" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not part of the Vista bundle`)});`,
      loader: "js",
    }));
  },
};

export async function build(outFile = path.join(ROOT, "dist", "vista-viewer.js")) {
  const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
  const worker = await esbuild.build({ ...common, entryPoints: ["src/layout/worker-entry.ts"] });
  const workerSource = worker.outputFiles[0].text;
  const workerModule = {
    name: "layout-worker-source",
    setup(b) {
      b.onResolve({ filter: /^vista:layout-worker$/ }, () => ({ path: "layout-worker", namespace: "vista" }));
      b.onLoad({ filter: /.*/, namespace: "vista" }, () => ({
        contents: `export default ${JSON.stringify(workerSource)};`,
        loader: "js",
      }));
    },
  };
  const main = await esbuild.build({
    ...common,
    entryPoints: ["src/index.ts"],
    loader: { ".css": "text" },
    define: { __VISTA_VERSION__: JSON.stringify(pkg.version) },
    banner: { js: `/*! Vista viewer ${pkg.version}: built from frontend/ by \`npm run build\`; do not edit. */` },
    plugins: [workerModule, optionalJsPdfDeps],
  });
  const text = main.outputFiles[0].text;
  await mkdir(path.dirname(outFile), { recursive: true });
  await writeFile(outFile, text);
  return { outFile, bytes: Buffer.byteLength(text) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { outFile, bytes } = await build(process.argv[2]);
  console.log(`wrote ${path.relative(process.cwd(), outFile)} (${(bytes / 1024).toFixed(0)} KiB)`);
}
