/**
 * The two large parts the viewer does not carry in its code: Graphviz's WebAssembly and the PDF
 * chunk (jsPDF + svg2pdf.js). The build writes them next to the bundle as raw-DEFLATE files
 * (vista-graphviz.wasm.deflate, vista-pdf.js.deflate, beside the code in vista-render-html's static/); the page embeds each as base64
 * text of its own and hands them to the bundle as it runs it: the parameter `__vistaAssets` of
 * the function the bundle is evaluated in (or, where eval is refused, a global of that name for
 * the duration of the bundle's script).
 *
 * Kept out of the code because the page gzips the code: inside it, the base64 text of already
 * compressed bytes was inflated again on the page's main thread before the bundle could run,
 * and then scanned by the JavaScript parser as a 0.8 MB string literal (together about 30 ms
 * of the first view of a 24-layer GPT-2).
 */

/** What the page passes to the bundle. */
export interface ViewerAssets {
  /** Graphviz's WebAssembly, raw DEFLATE, base64. Read as the bundle starts. */
  readonly graphviz: string;
  /** The PDF chunk's code, raw DEFLATE, base64. Called on the first PDF export. */
  readonly pdf: () => string;
}

declare const __vistaAssets: unknown;

// Read while the bundle is evaluated: the page's global (eval refused) is gone afterwards.
const given: unknown = typeof __vistaAssets === "undefined" ? undefined : __vistaAssets;

const MISSING =
  "The Vista viewer bundle ran without its assets (Graphviz's WebAssembly and the PDF code): " +
  "run it through the page of vista-render-html, whose loader passes them as __vistaAssets.";

function isAssets(value: unknown): value is ViewerAssets {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.graphviz === "string" && record.graphviz.length > 0 && typeof record.pdf === "function";
}

/** The assets the page passed; throws a clear error when the bundle was run without them. */
export function viewerAssets(): ViewerAssets {
  if (!isAssets(given)) throw new Error(MISSING);
  return given;
}
