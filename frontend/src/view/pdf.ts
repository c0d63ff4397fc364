/**
 * Entry of the PDF chunk: jsPDF + svg2pdf.js (~0.47 MB of code, only needed when the user
 * exports a PDF). The build (scripts/build.mjs) bundles this file on its own and embeds the
 * result in the viewer as text; `export.ts` evaluates it on the first PDF export (`chunk.ts`),
 * so page loads neither parse nor run it.
 */
import { jsPDF } from "jspdf";
import { svg2pdf } from "svg2pdf.js";

/** `svg` (already in the document, see export.ts) as a one-page vector PDF of `width` × `height` pt. */
export async function renderPdf(svg: SVGSVGElement, width: number, height: number): Promise<Blob> {
  const pdf = new jsPDF({ orientation: width > height ? "landscape" : "portrait", unit: "pt", format: [width, height], compress: true });
  await svg2pdf(svg, pdf, { x: 0, y: 0, width, height });
  return pdf.output("blob");
}
