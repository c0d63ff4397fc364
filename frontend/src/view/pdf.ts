/**
 * Entry of the PDF chunk: jsPDF + svg2pdf.js (~0.47 MB of code, only needed when the user
 * exports a PDF). The build (scripts/build.mjs) bundles this file on its own and embeds the
 * result in the viewer as text; `export.ts` evaluates it on the first PDF export (`chunk.ts`),
 * so page loads neither parse nor run it.
 */
import { jsPDF } from "jspdf";
import { svg2pdf } from "svg2pdf.js";
import { TEXT_FONT_FAMILY } from "./text-font";

const FONT_FILE = "VistaText.ttf";

/**
 * `svg` (already in the document, see export.ts) as a one-page vector PDF of `width` × `height`
 * pt. `font` is the document's text font (a TrueType file as a binary string, see text-font.ts),
 * which the texts with font-family "Vista Text" are drawn in; jsPDF embeds the glyphs they use.
 */
export async function renderPdf(svg: SVGSVGElement, width: number, height: number, font: string | null): Promise<Blob> {
  const pdf = new jsPDF({ orientation: width > height ? "landscape" : "portrait", unit: "pt", format: [width, height], compress: true });
  if (font !== null) {
    pdf.addFileToVFS(FONT_FILE, font);
    // The subset has one weight: bold labels use the same glyphs.
    for (const style of ["normal", "bold"]) pdf.addFont(FONT_FILE, TEXT_FONT_FAMILY, style, "Identity-H");
  }
  await svg2pdf(svg, pdf, { x: 0, y: 0, width, height });
  return pdf.output("blob");
}
