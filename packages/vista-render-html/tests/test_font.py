"""The page's text font: a subset for the names outside Latin-1, embedded only when there are any."""

from __future__ import annotations

import base64
import copy
import io
import json
import re
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from fontTools.ttLib import TTFont

from vista_render_html import render_html
from vista_render_html._font import FONT_FAMILY, PDF_STAND_INS, document_characters, font_characters, text_font

NAMES = {
    "cjk": "编码器",
    "cyrillic": "Слой",
    "greek": "Ελληνικά",
    "hangul": "디코더",
    "kana": "デコーダ",
    "arabic": "مخرج",
}
FONT_ELEMENT = re.compile(r'<script type="application/octet-stream" data-vista="font">([A-Za-z0-9+/=]+)</script>')


def _renamed(doc: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """``doc`` with its modules' class names replaced by ``names`` (as many as given)."""
    out = copy.deepcopy(doc)
    for module, name in zip(out["modules"], names, strict=False):
        module["class_name"] = name
    return out


def _font(page: str) -> TTFont | None:
    found = FONT_ELEMENT.findall(page)
    assert len(found) <= 1
    return None if not found else TTFont(io.BytesIO(zlib.decompress(base64.b64decode(found[0]), -15)))


def test_a_latin_only_page_has_no_font(mlp_doc: dict[str, Any]) -> None:
    latin1 = _renamed(mlp_doc, ["Modèle_ÆØÅ×µ", "x−1"])  # Latin-1, and the minus the PDF draws as "-"
    assert text_font(latin1) is None
    page = render_html(latin1)
    assert 'data-vista="font"' not in page
    assert set(re.findall(r'data-vista="(\w+)"', page)) == {"bundle", "graphviz", "pdf", "graph", "options", "root"}


def test_a_page_with_non_latin_names_embeds_a_subset_holding_them(mlp_doc: dict[str, Any]) -> None:
    doc = _renamed(mlp_doc, [" · ".join(NAMES.values()), "Слой.weight"])
    font = _font(render_html(doc))
    assert font is not None
    assert font["name"].getDebugName(1) == FONT_FAMILY
    cmap = font.getBestCmap()
    glyf = font["glyf"]
    for script, name in NAMES.items():
        for c in name:
            assert ord(c) in cmap, (script, c)
            # An outline of its own (contours, or components: -1), not the empty glyph.
            assert glyf[cmap[ord(c)]].numberOfContours != 0, (script, c)
    # What the viewer writes next to a name ("12 params", "…", "1×8") is in it too.
    assert all(ord(c) in cmap for c in "0123456789 params…×·")
    # Arabic letters' shaped forms, which the PDF export draws: مـ (initial mim), ـج (final jim).
    assert 0xFEE3 in cmap and 0xFE9E in cmap
    # A subset: nowhere near the 3.4 MB of the CJK font it comes from.
    assert len(glyf.glyphOrder) < 300


def test_the_subset_has_only_the_document_s_characters(mlp_doc: dict[str, Any]) -> None:
    small = _font(render_html(_renamed(mlp_doc, ["编码器"])))
    large = _font(render_html(_renamed(mlp_doc, ["编码器解码器注意力层"])))
    assert small is not None and large is not None
    assert ord("解") not in small.getBestCmap() and ord("解") in large.getBestCmap()


def test_the_font_is_deterministic_and_keeps_the_licenses(mlp_doc: dict[str, Any]) -> None:
    doc = _renamed(mlp_doc, ["多语言模型 Кодировщик"])
    first = text_font(doc)
    assert first is not None
    # A fresh process cuts the same bytes.
    code = (
        "import sys, json; from vista_render_html._font import text_font\n"
        "sys.stdout.buffer.write(text_font(json.loads(sys.stdin.read())))"
    )

    again = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(doc).encode(), capture_output=True, check=True
    )
    assert again.stdout == first
    names = TTFont(io.BytesIO(first))["name"]
    assert "Bitstream" in (names.getDebugName(0) or "") and "Google" in (names.getDebugName(0) or "")
    assert "Apache License" in (names.getDebugName(13) or "")
    # The Bitstream Vera license: a modified font carries neither of its names.
    assert not re.search(r"Bitstream|Vera|DejaVu", names.getDebugName(1) or "")


def test_characters_come_from_every_string_and_key() -> None:
    doc = {"a": ["x", {"ключ": "值"}], "b": ("β",), "n": 1}
    assert {"ключ"[0], "值", "β", "x"} <= document_characters(doc)
    assert font_characters({"a", "\u2212", "\u2026"}) is None  # ASCII stand-ins in the PDF
    assert font_characters({"\u200b"}) is None  # a format character draws nothing
    wanted = font_characters({"值"})
    assert wanted is not None and "值" in wanted and "A" in wanted


def test_the_pdf_stand_ins_are_the_viewer_s() -> None:
    """The characters the PDF export draws as ASCII without a font (export.ts's STAND_INS) are the
    ones that do not call for a font here."""
    export = Path(__file__).resolve().parents[3] / "frontend" / "src" / "view" / "export.ts"
    if not export.is_file():
        pytest.skip("not a monorepo checkout: frontend/ is absent (e.g. testing an sdist)")
    found = re.search(r"const STAND_INS: [^=]*= \{([^}]*)\}", export.read_text(encoding="utf-8"))
    assert found is not None
    keys = {chr(int(code, 16)) for code in re.findall(r'"\\u([0-9a-fA-F]{4})":', found.group(1))}
    assert keys == PDF_STAND_INS
