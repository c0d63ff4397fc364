/**
 * Export of the current view (the whole graph at its current open/closed state) as a
 * standalone SVG, a PNG raster of it, and a vector PDF (jsPDF + svg2pdf.js: real paths and
 * text, not a picture). The PDF code is a separate chunk (`pdf.ts`), handed over by the page as
 * text (see ../assets.ts) and run on the first PDF export.
 */
import { viewerAssets } from "../assets";
import { loadChunk } from "../chunk";
import type * as PdfChunk from "./pdf";
import { needsTextFont, TEXT_FONT_FAMILY, type TextFont } from "./text-font";

const SVG_NS = "http://www.w3.org/2000/svg";
const MARGIN = 16;
/** PDF pages are limited to 14,400 user units a side. */
const MAX_PDF_SIDE = 14000;
/** Canvas limits in Chromium: keep both sides and the area well inside them. */
const MAX_CANVAS_SIDE = 16000;
const MAX_CANVAS_AREA = 60_000_000;
/**
 * How long the PNG export lets an SVG image with an embedded @font-face decode its font before
 * drawing it (10-25 ms in Chromium): "load" fires before, no event says when, and the first
 * draw fixes the image's rendering, fallback glyphs and all.
 */
const FONT_SETTLE_MS = 150;

export interface ExportSource {
  readonly viewport: SVGGElement;
  readonly width: number;
  readonly height: number;
  readonly background: string;
  /** The document's text font (text-font.ts), which the exports embed; null for a Latin-only page. */
  readonly font: TextFont | null;
}

/** A standalone <svg> element with the drawn graph: no selection outline, no +/− or ×N buttons. */
export function exportSvgElement(src: ExportSource): SVGSVGElement {
  const w = Math.max(1, Math.ceil(src.width + 2 * MARGIN));
  const h = Math.max(1, Math.ceil(src.height + 2 * MARGIN));
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("xmlns", SVG_NS);
  svg.setAttribute("width", String(w));
  svg.setAttribute("height", String(h));
  svg.setAttribute("viewBox", `${-MARGIN} ${-MARGIN} ${w} ${h}`);
  const bg = document.createElementNS(SVG_NS, "rect");
  bg.setAttribute("x", String(-MARGIN));
  bg.setAttribute("y", String(-MARGIN));
  bg.setAttribute("width", String(w));
  bg.setAttribute("height", String(h));
  bg.setAttribute("fill", src.background);
  svg.appendChild(bg);
  if (src.font !== null) {
    // The SVG (and the PNG drawn from it, an image that sees no page font) carries the font.
    const style = document.createElementNS(SVG_NS, "style");
    style.setAttribute("class", "vista-text-font");
    style.textContent = `@font-face{font-family:"${TEXT_FONT_FAMILY}";src:url(data:font/ttf;base64,${src.font.base64}) format("truetype")}`;
    svg.appendChild(style);
  }
  const copy = src.viewport.cloneNode(true) as SVGGElement;
  copy.removeAttribute("transform");
  // Controls and the selection outline are for the screen; a picture of the graph has no use for them.
  copy.querySelectorAll(".vista-layer-highlight, [data-action]").forEach((e) => e.remove());
  for (const a of ["data-dim", "data-selected", "tabindex", "role", "aria-label"]) {
    copy.querySelectorAll(`[${a}]`).forEach((e) => e.removeAttribute(a));
  }
  svg.appendChild(copy);
  return svg;
}

export function exportSvgString(src: ExportSource): string {
  const text = new XMLSerializer().serializeToString(exportSvgElement(src));
  return `<?xml version="1.0" encoding="UTF-8"?>\n${text}`;
}

export async function exportPng(src: ExportSource, scale = 2): Promise<Blob> {
  const svgText = exportSvgString(src);
  const w = src.width + 2 * MARGIN;
  const h = src.height + 2 * MARGIN;
  let k = scale;
  k = Math.min(k, MAX_CANVAS_SIDE / w, MAX_CANVAS_SIDE / h, Math.sqrt(MAX_CANVAS_AREA / (w * h)));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.floor(w * k));
  canvas.height = Math.max(1, Math.floor(h * k));
  const ctx = canvas.getContext("2d");
  if (ctx === null) throw new Error("PNG export needs a 2D canvas, which this browser did not provide.");
  const url = URL.createObjectURL(new Blob([svgText], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error("PNG export: the browser could not draw the exported SVG."));
      image.src = url;
    });
    if (src.font !== null) await new Promise((resolve) => setTimeout(resolve, FONT_SETTLE_MS));
    ctx.fillStyle = src.background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
  } finally {
    URL.revokeObjectURL(url);
  }
  return new Promise<Blob>((resolve, reject) => {
    canvas.toBlob((blob) => (blob === null ? reject(new Error("PNG export failed: empty canvas.")) : resolve(blob)), "image/png");
  });
}

/**
 * ASCII for what the viewer writes outside WinAnsi (the standard PDF fonts' encoding), for a
 * page without a text font; with one, the font has these glyphs. vista-render-html's
 * _font.PDF_STAND_INS lists the same characters (a test keeps them equal): alone, they call for no font.
 */
const STAND_INS: Readonly<Record<string, string>> = { "\u2212": "-", "\u2192": "->", "\u2026": "...", "\u0394": "~", "\u2191": "^", "\u2193": "v" };
const STAND_IN = /[\u2212\u2192\u2026\u0394\u2191\u2193]/g;

/**
 * Adjusts a copy of the SVG to what svg2pdf draws faithfully (no halos): a text with a character
 * outside Latin-1 in the document's text font (registered by pdf.ts), any other in Helvetica.
 */
function pdfFriendly(svg: SVGSVGElement, font: TextFont | null): void {
  // svg2pdf embeds fonts through jsPDF only, not from @font-face rules.
  svg.querySelectorAll("style.vista-text-font").forEach((s) => s.remove());
  svg.querySelectorAll("text").forEach((t) => {
    const text = t.textContent ?? "";
    const own = font !== null && needsTextFont(text);
    if (own) {
      t.setAttribute("font-family", TEXT_FONT_FAMILY);
    } else {
      const plain = text.replace(STAND_IN, (c) => STAND_INS[c] ?? c);
      if (plain !== text) t.textContent = plain;
      t.setAttribute("font-family", "helvetica");
    }
    const bold = Number(t.getAttribute("font-weight") ?? "400") >= 600;
    t.setAttribute("font-weight", bold ? "bold" : "normal");
    if (t.getAttribute("paint-order") === "stroke") {
      t.removeAttribute("stroke");
      t.removeAttribute("stroke-width");
      t.removeAttribute("paint-order");
    }
    const fill = t.getAttribute("fill");
    if (own && bold && fill !== null) {
      // The text font has one weight: an outline in the text's colour stands in for bold.
      t.setAttribute("stroke", fill);
      t.setAttribute("stroke-width", String(0.04 * Number(t.getAttribute("font-size") ?? "12")));
    }
  });
  svg.querySelectorAll("title").forEach((t) => t.remove());
}

export async function exportPdf(src: ExportSource): Promise<Blob> {
  const svg = exportSvgElement(src);
  pdfFriendly(svg, src.font);
  const w = src.width + 2 * MARGIN;
  const h = src.height + 2 * MARGIN;
  const k = Math.min(1, MAX_PDF_SIDE / w, MAX_PDF_SIDE / h);
  const pw = w * k;
  const ph = h * k;
  const { renderPdf } = await loadPdfChunk();
  // svg2pdf reads computed styles: the copy must be in the document while it is converted.
  const holder = document.createElement("div");
  holder.style.cssText = "position:absolute;left:-100000px;top:0;width:0;height:0;overflow:hidden";
  holder.appendChild(svg);
  document.body.appendChild(holder);
  try {
    return await renderPdf(svg, pw, ph, src.font?.binary ?? null);
  } finally {
    holder.remove();
  }
}

let pdfChunk: Promise<typeof PdfChunk> | null = null;

function loadPdfChunk(): Promise<typeof PdfChunk> {
  if (pdfChunk === null) {
    let packed: string;
    try {
      packed = viewerAssets().pdf();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pdfChunk = loadChunk<typeof PdfChunk>(packed, "vista-pdf.js");
    pdfChunk.catch(() => {
      pdfChunk = null;
    });
  }
  return pdfChunk;
}

/** Saves `blob` as a download named `name` (an invisible link clicked once). */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
