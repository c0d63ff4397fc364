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
  // Its own characters only: pages with several viewers have several such fonts of one family.
  const face = new FontFace(TEXT_FONT_FAMILY, bytes, { unicodeRange: unicodeRange(fontCharacters(bytes)) });
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

/** The code points a TrueType font maps (its Windows Unicode cmap: format 12, else format 4). */
export function fontCharacters(font: Uint8Array): number[] {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  let cmap = -1;
  for (let i = 0, n = view.getUint16(4); i < n; i++) {
    const entry = 12 + 16 * i;
    if (view.getUint32(entry) === 0x636d6170) cmap = view.getUint32(entry + 8);
  }
  if (cmap < 0) throw new Error("the page's text font has no cmap table");
  const subtables = new Map<number, number>();
  for (let i = 0, n = view.getUint16(cmap + 2); i < n; i++) {
    const record = cmap + 4 + 8 * i;
    subtables.set(view.getUint16(record) * 100 + view.getUint16(record + 2), cmap + view.getUint32(record + 4));
  }
  const codes: number[] = [];
  const full = subtables.get(310);
  const bmp = subtables.get(301);
  if (full !== undefined && view.getUint16(full) === 12) {
    for (let i = 0, n = view.getUint32(full + 12); i < n; i++) {
      const group = full + 16 + 12 * i;
      for (let c = view.getUint32(group), end = view.getUint32(group + 4); c <= end; c++) codes.push(c);
    }
  } else if (bmp !== undefined && view.getUint16(bmp) === 4) {
    const segments = view.getUint16(bmp + 6) / 2;
    const ends = bmp + 14;
    const starts = ends + 2 * segments + 2;
    for (let i = 0; i < segments; i++) {
      const end = view.getUint16(ends + 2 * i);
      // The closing 0xFFFF segment maps nothing.
      for (let c = view.getUint16(starts + 2 * i); c <= end && c !== 0xffff; c++) codes.push(c);
    }
  }
  return codes;
}

/** Code points as a CSS unicode-range ("U+20-7E, U+4E00"), runs joined. */
export function unicodeRange(codes: readonly number[]): string {
  const sorted = [...new Set(codes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
    const from = (sorted[i] as number).toString(16).toUpperCase();
    const to = (sorted[j] as number).toString(16).toUpperCase();
    parts.push(i === j ? `U+${from}` : `U+${from}-${to}`);
    i = j + 1;
  }
  return parts.join(", ");
}
