import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fontCharacters, needsTextFont, unicodeRange } from "../src/view/text-font";

const FONTS = new URL("../../packages/vista-render-html/src/vista_render_html/fonts/", import.meta.url);
const font = (name: string): Uint8Array => new Uint8Array(readFileSync(fileURLToPath(new URL(name, FONTS))));

describe("the text font's characters", () => {
  it("reads a font's Unicode cmap (format 12 where there is one)", () => {
    // fontTools' getBestCmap() of the shipped files: 5,918 and 33,247 code points.
    const dejavu = fontCharacters(font("DejaVuSans.ttf"));
    expect(dejavu.length).toBe(5918);
    expect(dejavu).toContain(0x416); // Ж
    expect(dejavu).toContain(0x1f643); // beyond the BMP: only format 12 has it
    const droid = new Set(fontCharacters(font("DroidSansFallback.ttf")));
    expect(droid.size).toBe(33247);
    expect(droid.has(0x7f16) && droid.has(0xd55c)).toBe(true); // 编, 한
    expect(droid.has(0x416)).toBe(false);
  });

  it("writes code points as a CSS unicode-range, runs joined", () => {
    expect(unicodeRange([0x41, 0x42, 0x43, 0x4e00, 0x20, 0x42])).toBe("U+20, U+41-43, U+4E00");
    expect(unicodeRange([])).toBe("");
  });

  it("tells which texts the standard PDF fonts cannot draw", () => {
    expect(needsTextFont("Modèle ×2 µ")).toBe(false);
    expect(needsTextFont("编码器.linear")).toBe(true);
    expect(needsTextFont("Слой")).toBe(true);
  });
});
