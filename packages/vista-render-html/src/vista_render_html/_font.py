"""The page's text font: for a document with strings outside Latin-1 (CJK, Hangul, Cyrillic,
Greek, Arabic, …), a TrueType subset of the fonts in ``fonts/`` holding exactly the characters
the document uses, which the viewer registers for the screen and embeds in its PDF export
(jsPDF's standard fonts are Latin-1 only). A Latin-only document gets no font.

The subset is cut with fontTools: DejaVu Sans gives each character it has (Latin, Greek,
Cyrillic, Arabic, Hebrew, symbols), Droid Sans Fallback the rest (CJK, Hangul, kana), and the
two are merged into one font named "Vista Text", so that a name mixing scripts is one run of
one font in the PDF. Same characters, same bytes.
"""

from __future__ import annotations

import base64
import io
import unicodedata
import zlib
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ._bundle import shipped_bytes

if TYPE_CHECKING:
    from fontTools.ttLib import TTFont

__all__ = [
    "FONT_FAMILY",
    "PDF_STAND_INS",
    "SOURCE_FONTS",
    "document_characters",
    "font_characters",
    "font_payload",
    "text_font",
]

#: The family the viewer draws and exports these characters in (frontend/src/view/text-font.ts).
FONT_FAMILY = "Vista Text"
#: The fonts in ``fonts/``, in the order a character is looked up, and whether their layout
#: tables (shaping, mark positioning: what Arabic needs on screen) are kept for text that needs
#: them; CJK is drawn glyph by glyph.
SOURCE_FONTS = (("DejaVuSans.ttf", True), ("DroidSansFallback.ttf", False))

#: Drawn by the PDF export with ASCII stand-ins in Latin-only documents (export.ts STAND_INS, which
#: a test keeps equal), so they alone do not call for a font.
PDF_STAND_INS = frozenset("\u2212\u2192\u2026\u0394\u2191\u2193")
# What the viewer itself writes next to the names (ellipses, shapes, arrows, badges): with a font,
# the PDF draws them in it, since a name run is one font.
_VIEWER_TEXT = frozenset(chr(c) for c in range(0x20, 0x7F)) | frozenset("×·µ−→…Δ↑↓")


def document_characters(document: Any) -> set[str]:
    """Every character of every string (keys too) in a JSON-like ``document``."""
    found: set[str] = set()
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            found.update(value)
        elif isinstance(value, dict):
            found.update(*(k for k in value if isinstance(k, str)))
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return found


def _needs_font(c: str) -> bool:
    # Controls, format characters, surrogates and private-use code points have nothing to draw.
    return ord(c) > 0xFF and c not in PDF_STAND_INS and not unicodedata.category(c).startswith("C")


def font_characters(characters: Iterable[str]) -> frozenset[str] | None:
    """The characters the font must hold for a document using ``characters``, or None when
    the document needs no font: the ones outside Latin-1, what the viewer writes beside them,
    the document's Latin-1 ones, and the presentation forms that Arabic letters take when the
    PDF export shapes them."""
    used = {c for c in characters if not unicodedata.category(c).startswith("C")}
    if not any(_needs_font(c) for c in used):
        return None
    wanted = used | _VIEWER_TEXT
    wanted |= {form for form, letters in _presentation_forms().items() if letters <= wanted}
    return frozenset(wanted)


def _shaped(c: int) -> bool:
    """Whether text with this character needs the font's layout tables to draw right on screen:
    Arabic and Syriac letters join, marks sit on their base (decompiling those tables is most of
    the subsetting time, and kerning alone is not worth it)."""
    return (
        0x0590 <= c <= 0x08FF
        or 0xFB1D <= c <= 0xFDFF
        or 0xFE70 <= c <= 0xFEFF
        or unicodedata.category(chr(c)).startswith("M")
    )


@lru_cache(maxsize=1)
def _presentation_forms() -> dict[str, frozenset[str]]:
    """Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFF) by the letters they stand for."""
    forms: dict[str, frozenset[str]] = {}
    for code in (*range(0xFB50, 0xFE00), *range(0xFE70, 0xFF00)):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) > 1 and parts[0].startswith("<"):
            forms[chr(code)] = frozenset(chr(int(p, 16)) for p in parts[1:])
    return forms


def text_font(document: Any) -> bytes | None:
    """The TrueType subset for ``document`` (a JSON-like graph or diff document), or None when
    its strings are all Latin-1."""
    wanted = font_characters(document_characters(document))
    return None if wanted is None else _subset(wanted)


def font_payload(document: Any) -> str:
    """The font as the page embeds it: base64 of its raw DEFLATE bytes, like the viewer's assets
    (see _bundle.py); "" when the document needs none."""
    font = text_font(document)
    if font is None:
        return ""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    return base64.b64encode(packer.compress(font) + packer.flush()).decode("ascii")


@lru_cache(maxsize=4)
def _subset(wanted: frozenset[str]) -> bytes:
    from fontTools import subset
    from fontTools.merge import Merger
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.scaleUpem import scale_upem

    remaining = {ord(c) for c in wanted}
    parts: list[TTFont] = []
    for name, layout in SOURCE_FONTS:
        own = remaining & _coverage(name)
        if not own and parts:
            continue
        remaining -= own
        font = TTFont(io.BytesIO(_source(name)))
        options = subset.Options()
        options.hinting = False
        options.glyph_names = False
        options.name_IDs = [0, 13, 14]
        options.notdef_outline = True
        # Vertical metrics and tables for other uses (math, kerning pairs, FontForge's stamp).
        options.drop_tables += ["vhea", "vmtx", "MATH", "FFTM", "kern", "gasp"]
        if layout and any(_shaped(c) for c in own):
            options.layout_features = ["*"]
        else:
            options.layout_features = []
            options.drop_tables += ["GSUB", "GPOS", "GDEF"]
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=own)
        subsetter.subset(font)
        if parts and font["head"].unitsPerEm != parts[0]["head"].unitsPerEm:
            scale_upem(font, parts[0]["head"].unitsPerEm)
        parts.append(font)
    merged = parts[0] if len(parts) == 1 else Merger().merge([_saved(p) for p in parts])
    # The first source's dates, not the time of this render (which the merge writes).
    merged["head"].modified = parts[0]["head"].modified
    merged["head"].created = parts[0]["head"].created
    _rename(merged, [p["name"].getDebugName(0) or "" for p in parts])
    return _saved(merged).getvalue()


def _saved(font: TTFont) -> io.BytesIO:
    # The sources' timestamps, not the time of this render: same characters, same bytes.
    font.recalcTimestamp = False
    buffer = io.BytesIO()
    font.save(buffer, reorderTables=True)
    buffer.seek(0)
    return buffer


def _rename(font: TTFont, copyrights: list[str]) -> None:
    """Names the subset "Vista Text" (the Bitstream Vera license forbids a modified font its
    names) and keeps every source's copyright notice; the license texts (entry 13) stay."""
    table = font["name"]
    licence = table.getDebugName(13) or ""
    table.names = []
    fields = {
        0: "\n".join(c for c in copyrights if c),
        1: FONT_FAMILY,
        2: "Regular",
        3: f"{FONT_FAMILY} (subset of DejaVu Sans and Droid Sans Fallback)",
        4: FONT_FAMILY,
        5: "Version 1.0",
        6: FONT_FAMILY.replace(" ", ""),
        13: licence + "\n\nDroid Sans Fallback: Copyright 2006-2010 Google Corp., licensed under the Apache "
        "License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0).",
    }
    for name_id, text in fields.items():
        table.setName(text, name_id, 3, 1, 0x409)


@lru_cache(maxsize=2)
def _coverage(name: str) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(io.BytesIO(_source(name))).getBestCmap())


@lru_cache(maxsize=2)
def _source(name: str) -> bytes:
    return shipped_bytes(
        "fonts",
        name,
        f"The font fonts/{name} is missing from this vista-render-html installation; reinstall "
        "vista-render-html (it draws names outside Latin-1 with it).",
    )
