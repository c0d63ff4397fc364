// Builds the viewer into vista-render-html's static/ (the one committed copy, which the wheel
// ships): vista-viewer.js, one IIFE with the viewer, d3, its CSS and the
// layout worker bundle (@viz-js/viz without its WebAssembly) as text; and, beside it, the two
// large parts the page passes to that code as it runs it (see src/assets.ts), raw DEFLATE:
// vista-graphviz.wasm.deflate (Graphviz's WebAssembly) and vista-pdf.js.deflate (the PDF chunk,
// jsPDF + svg2pdf.js, run on the first PDF export). Deterministic: the same sources and lockfile
// give the same bytes (checked by scripts/check-drift.mjs).
import { deflateRawSync } from "node:zlib";
import * as esbuild from "esbuild";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";

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

// jsPDF decodes PNG images with fast-png (and pako, which it brings): the exported SVG has no
// image, so its one static import gets a decoder that says so instead.
const rasterDecoder = {
  name: "omit-png-decoder",
  setup(build) {
    build.onResolve({ filter: /^fast-png$/ }, (args) => ({ path: args.path, namespace: "omitted-png" }));
    build.onLoad({ filter: /.*/, namespace: "omitted-png" }, () => ({
      contents: `export function decode() { throw new Error("fast-png is not part of the Vista bundle: the PDF export draws no raster image"); }`,
      loader: "js",
    }));
  },
};

// jsPDF's plugins register themselves as they run, so bundling cannot drop the ones svg2pdf.js
// never calls. Taken out of its readable ES build instead (from each header comment to the end
// of its block): the canvas emulation (context2d), html() (which needs the omitted
// html2canvas) and the GIF, BMP and WebP decoders; about 0.2 MB of code. Every cut must match
// exactly once, so a jsPDF upgrade that moves them fails the build loudly.
const JSPDF_PLUGIN_END = "})(jsPDF.API);\n";
const JSPDF_CUTS = [
  ["/**\n * This plugin mimics the HTML5 CanvasRenderingContext2D.", JSPDF_PLUGIN_END],
  ["/**\n * jsPDF html PlugIn", JSPDF_PLUGIN_END],
  ["/**\n * jsPDF Gif Support PlugIn", "/**\n * jsPDF RGBA array PlugIn"],
];
const leanJsPdf = {
  name: "jspdf-without-unused-plugins",
  setup(build) {
    const dist = path.join(ROOT, "node_modules", "jspdf", "dist");
    build.onResolve({ filter: /^jspdf$/ }, () => ({ path: path.join(dist, "jspdf.es.js") }));
    build.onLoad({ filter: /[\\/]jspdf[\\/]dist[\\/]jspdf\.es\.js$/ }, async (args) => {
      let text = await readFile(args.path, "utf8");
      for (const [start, end] of JSPDF_CUTS) {
        const from = text.indexOf(start);
        if (from < 0 || text.indexOf(start, from + 1) >= 0) {
          throw new Error(`jsPDF: expected exactly one ${JSON.stringify(start.slice(7))}; update scripts/build.mjs`);
        }
        const to = text.indexOf(end, from);
        if (to < 0) throw new Error(`jsPDF: no end after ${JSON.stringify(start.slice(7))}; update scripts/build.mjs`);
        text = text.slice(0, from) + text.slice(end === JSPDF_PLUGIN_END ? to + end.length : to);
      }
      return { contents: text, loader: "js" };
    });
  },
};

// Graphviz's WASM: @viz-js/viz embeds it in dist/viz.js (the file its package exports) as a 0.9 MB string literal decoded
// with binaryDecode('...'). Shipping that inside the worker source means the page parses it as
// part of a string, then the worker parses it again and compiles it, all before the first view.
// Instead the literal is taken out at build time and written as its own file (the page carries
// it once, as base64 text decoded and compiled by src/layout/wasm.ts, off the main thread), and
// the worker's backend is patched to take the compiled module from src/layout/wasm-provider.ts.
// Every patch must match exactly once, so an upgrade of @viz-js/viz that changes the loader
// fails the build loudly.
const VIZ = /[\\/]@viz-js[\\/]viz[\\/]dist[\\/]viz\.js$/;
const WASM_LITERAL = /findWasmBinary\(\)\{return binaryDecode\('((?:[^'\\]|\\[\s\S])*)'\)\}/g;
const INSTANTIATE = "var instance=await WebAssembly.instantiate(binary,imports);return instance";
const SCRIPT_DIRECTORY = 'try{scriptDirectory=new URL(".",_scriptName).href;}catch{}';

function replaceOnce(text, pattern, replacement, what) {
  const matches = typeof pattern === "string" ? text.split(pattern).length - 1 : [...text.matchAll(pattern)].length;
  if (matches !== 1) {
    throw new Error(`@viz-js/viz backend: expected exactly one ${what}, found ${matches}; update scripts/build.mjs`);
  }
  return typeof pattern === "string" ? text.replace(pattern, () => replacement) : text.replace(pattern, replacement);
}

async function readBackend() {
  return readFile(path.join(ROOT, "node_modules", "@viz-js", "viz", "dist", "viz.js"), "utf8");
}

/** The WASM bytes embedded in the backend, decoded exactly as its binaryDecode() does. */
async function graphvizWasm() {
  const text = await readBackend();
  const found = [...text.matchAll(WASM_LITERAL)];
  if (found.length !== 1) throw new Error(`@viz-js/viz backend: expected one embedded WASM literal, found ${found.length}`);
  // The regex matched exactly one single-quoted string literal: let a JS engine read its escapes.
  const literal = runInNewContext(`'${found[0][1]}'`);
  const bytes = Buffer.alloc(literal.length);
  for (let i = 0; i < literal.length; i++) {
    const c = literal.charCodeAt(i);
    bytes[i] = ~c >> 8 & c;
  }
  if (bytes.readUInt32BE(0) !== 0x0061736d) throw new Error("@viz-js/viz backend: the embedded literal is not WebAssembly");
  return bytes;
}

const patchedBackend = {
  name: "graphviz-backend-without-wasm",
  setup(b) {
    const provider = path.join(ROOT, "src", "layout", "wasm-provider.ts");
    b.onLoad({ filter: VIZ }, async (args) => {
      let text = await readFile(args.path, "utf8");
      text = replaceOnce(text, WASM_LITERAL, "findWasmBinary(){return __vistaWasmSource()}", "embedded WASM literal");
      text = replaceOnce(text, INSTANTIATE, "return await __vistaInstantiateWasm(binary,imports)", "WebAssembly.instantiate call");
      // The script's directory is only used to fetch the WASM file, which the patches above
      // replace; in the bundle import.meta.url is undefined, so computing it always threw (and
      // caught) a TypeError as Graphviz started. A thrown error is not free: where DevTools or
      // any inspector is attached, V8 records its stack with source positions, re-parsing every
      // function on it, the whole bundle included (30-50 ms on the first view).
      text = replaceOnce(text, SCRIPT_DIRECTORY, "", "script directory computation");
      const header = `import { wasmSource as __vistaWasmSource, instantiateWasm as __vistaInstantiateWasm } from ${JSON.stringify(provider)};\n`;
      return { contents: header + text, loader: "js" };
    });
  },
};

// The viewer checks documents against vista-schema's JSON Schema (src/model/check.ts): bundled
// without its descriptions and titles, which only people read.
const ANNOTATIONS = new Set(["description", "title", "$comment", "examples"]);
const leanSchema = {
  name: "schema-without-annotations",
  setup(b) {
    b.onLoad({ filter: /\.schema\.json$/ }, async (args) => {
      const strip = (value) => {
        if (Array.isArray(value)) return value.map(strip);
        if (value === null || typeof value !== "object") return value;
        return Object.fromEntries(Object.entries(value).filter(([k]) => !ANNOTATIONS.has(k)).map(([k, v]) => [k, strip(v)]));
      };
      return { contents: JSON.stringify(strip(JSON.parse(await readFile(args.path, "utf8")))), loader: "json" };
    });
  },
};

/** The files `build` writes, by name: the code and the two assets the page passes to it. */
export const OUTPUTS = ["vista-viewer.js", "vista-graphviz.wasm.deflate", "vista-pdf.js.deflate"];

/** Where the build goes: the renderer package's static/, the only copy of the built viewer. */
export const OUT_DIR = path.resolve(ROOT, "../packages/vista-render-html/src/vista_render_html/static");

export async function build(outDir = OUT_DIR) {
  const pkg = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8"));
  const worker = await esbuild.build({ ...common, entryPoints: ["src/layout/worker-entry.ts"], plugins: [patchedBackend] });
  const workerSource = worker.outputFiles[0].text;
  const wasm = await graphvizWasm();
  if (workerSource.length > wasm.length / 4) {
    throw new Error("the layout worker still embeds Graphviz's WASM: the @viz-js/viz patch did not apply");
  }
  // The PDF chunk: an IIFE assigning `var __vistaChunk = { renderPdf }`, inflated and run by
  // src/chunk.ts on the first PDF export, so page loads neither parse nor evaluate jsPDF and svg2pdf.js.
  const pdf = await esbuild.build({
    ...common,
    entryPoints: ["src/view/pdf.ts"],
    globalName: "__vistaChunk",
    plugins: [optionalJsPdfDeps, rasterDecoder, leanJsPdf],
  });
  const texts = { "layout-worker": workerSource };
  const workerModule = {
    name: "embedded-texts",
    setup(b) {
      b.onResolve({ filter: /^vista:layout-worker$/ }, (args) => ({ path: args.path.slice(6), namespace: "vista" }));
      b.onLoad({ filter: /.*/, namespace: "vista" }, (args) => ({
        contents: `export default ${JSON.stringify(texts[args.path])};`,
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
    plugins: [workerModule, leanSchema],
  });
  const code = main.outputFiles[0].text;
  if (/[A-Za-z0-9+/]{50000}/.test(code) || !code.includes("__vistaAssets")) {
    throw new Error("the viewer code must take Graphviz and the PDF chunk from __vistaAssets (src/assets.ts), not embed them");
  }
  const files = {
    "vista-viewer.js": Buffer.from(code, "utf8"),
    "vista-graphviz.wasm.deflate": deflateRawSync(wasm, { level: 9 }),
    "vista-pdf.js.deflate": deflateRawSync(Buffer.from(pdf.outputFiles[0].text, "utf8"), { level: 9 }),
  };
  await mkdir(outDir, { recursive: true });
  for (const name of OUTPUTS) await writeFile(path.join(outDir, name), files[name]);
  return { outDir, sizes: Object.fromEntries(OUTPUTS.map((name) => [name, files[name].length])) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { outDir, sizes } = await build(process.argv[2]);
  for (const [name, bytes] of Object.entries(sizes)) {
    console.log(`wrote ${path.relative(process.cwd(), path.join(outDir, name))} (${(bytes / 1024).toFixed(0)} KiB)`);
  }
}
