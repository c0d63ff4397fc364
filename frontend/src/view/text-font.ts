/**
 * The document's text font: for a document with names outside Latin-1 (CJK, Hangul, Cyrillic,
 * Greek, Arabic, …), the page hands mount() a TrueType subset with exactly the characters the
 * document uses ("Vista Text", cut by vista-render-html's _font.py), raw DEFLATE + base64. It is
 * registered with the page (FontFace) so that the graph draws those names where the system has
 * no such font, embedded by the SVG and PNG exports as a data: URL, and by the PDF export as an
 * Identity-H font, since jsPDF's standard fonts are Latin-1 only. A Latin-only page has none.
 */
import { base64Bytes, inflateRaw } from "../bytes";

/** The family every text of the graph lists before the generic one (measure.ts). */
export const TEXT_FONT_FAMILY = "Vista Text";

export interface TextFont {
  /** The TrueType file as a binary string (one char per byte), as jsPDF's file system takes it. */
  readonly binary: string;
  /** The same, base64-encoded, for a data: URL. */
  readonly base64: string;
}

/** What a page may hand mount() besides the document and the options. */
export interface PageResources {
  /** The document's text font, raw DEFLATE + base64 (vista-render-html writes it). */
  readonly textFont?: string;
}

/** The font in `packed`, registered with `doc` once loaded; rejects when it is no font. */
export async function loadTextFont(packed: string, doc: Document): Promise<TextFont> {
  const bytes = new Uint8Array(await new Response(inflateRaw(base64Bytes(packed))).arrayBuffer());
  const face = new FontFace(TEXT_FONT_FAMILY, bytes);
  await face.load();
  doc.fonts.add(face);
  let binary = "";
  const STEP = 0x8000;
  for (let i = 0; i < bytes.length; i += STEP) binary += String.fromCharCode(...bytes.subarray(i, i + STEP));
  return { binary, base64: btoa(binary) };
}

/** Whether `text` has a character that jsPDF's standard (WinAnsi) fonts cannot draw. */
export function needsTextFont(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return true;
  return false;
}
