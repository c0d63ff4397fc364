"""Export of the current view: a valid SVG, a PNG and a vector PDF, as downloads."""

from __future__ import annotations

import base64
import copy
import io
import re
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage, Viewer
from PIL import Image
from pypdf import PdfReader

from vista_render_html import render_html

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]
SVG = "{http://www.w3.org/2000/svg}"


def _download(viewer: Viewer, action: str, tmp_path: Path) -> tuple[str, bytes]:
    with viewer.page.expect_download(timeout=30_000) as info:
        viewer.click_action(action)
    download = info.value
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    return download.suggested_filename, target.read_bytes()


def _labels(doc: dict[str, Any]) -> set[str]:
    return {n["label"] for n in doc["nodes"] if n["kind"] == "op"}


def test_svg_export_is_valid_and_holds_the_graph(documents: Documents, open_viewer: OpenPage, tmp_path: Path) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    name, data = _download(viewer, "export-svg", tmp_path)
    assert name.endswith(".svg")
    root = ET.fromstring(data)
    assert root.tag == f"{SVG}svg"
    assert float(root.get("width", "0").removesuffix("px")) > 0
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for label in _labels(doc):
        assert label in text
    assert "2×32" in text  # an edge's shape
    # Self-contained: styles inlined, no external references.
    assert b"http://" not in data.replace(b"http://www.w3.org/", b"")
    # The handle's exportSVG() gives the same document.
    assert ET.fromstring(viewer.evaluate_handle("h => h.exportSVG()")).tag == f"{SVG}svg"


def test_export_follows_the_open_state(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=1)

    def texts() -> str:
        root = ET.fromstring(viewer.evaluate_handle("h => h.exportSVG()"))
        return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))

    closed = texts()
    assert "Sequential" in closed and "gelu" not in closed
    viewer.click_action("expand-all")
    full = ex.full_view(doc)
    viewer.wait_for_view(full.nodes, full.boxes)
    assert "gelu" in texts()


def test_png_export_is_a_png_of_the_view(documents: Documents, open_viewer: OpenPage, tmp_path: Path) -> None:
    viewer = open_viewer(documents("cnn"), depth=2)
    name, data = _download(viewer, "export-png", tmp_path)
    assert name.endswith(".png")
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.width >= 100
    assert image.height >= 100
    # Not blank: more than a handful of colours.
    colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is not None
    assert len(colours) > 8


def test_pdf_export_is_vector(documents: Documents, open_viewer: OpenPage, tmp_path: Path) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    name, data = _download(viewer, "export-pdf", tmp_path)
    assert name.endswith(".pdf")
    assert data.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 1
    page = reader.pages[0]
    text = page.extract_text()
    for label in _labels(doc):
        assert label in text, (label, text)
    content = page.get_contents()
    assert content is not None
    ops = content.get_data()
    # Vector drawing: text show operators and path painting, not one image.
    assert b"Tj" in ops or b"TJ" in ops
    assert any(op in ops for op in (b" re", b" l\n", b" c\n", b" l ", b" c "))
    resources = page.get("/Resources") or {}
    xobjects = resources.get("/XObject") if hasattr(resources, "get") else None
    images = [x for x in (xobjects or {}).values() if x.get_object().get("/Subtype") == "/Image"]
    assert len(images) == 0


def test_exports_leave_out_the_controls(documents: Documents, open_viewer: OpenPage, tmp_path: Path) -> None:
    doc = documents("gpt2")
    viewer = open_viewer(doc, depth=2)
    viewer.evaluate_handle("h => h.expandAll()")
    viewer.page.wait_for_selector(viewer.sel('[data-action="fold"]'), state="attached")
    assert viewer.page.query_selector(viewer.sel('[data-action="toggle"]')) is not None
    root = ET.fromstring(viewer.evaluate_handle("h => h.exportSVG()"))
    assert [e.tag for e in root.iter() if e.get("data-action") is not None] == []
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert not [t for t in texts if t in ("+", "−", "-") or (t.startswith("×") and t[1:].isdigit())]
    assert "Block" in " ".join(texts) or "GPT2Block" in " ".join(texts)
    # The PDF too: no lone +/− and no "×3" button; every op label is there.
    _, data = _download(viewer, "export-pdf", tmp_path)
    lines = [line.strip() for line in PdfReader(io.BytesIO(data)).pages[0].extract_text().splitlines()]
    assert not [t for t in lines if t in ("+", "−", "-") or (t.startswith("×") and t[1:].isdigit())]


def test_pdf_draws_the_minus_sign(documents: Documents, open_viewer: OpenPage, tmp_path: Path) -> None:
    doc = copy.deepcopy(documents("mlp"))
    op = next(n for n in doc["nodes"] if n["kind"] == "op")
    op["label"] = "x−1"
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    _, data = _download(viewer, "export-pdf", tmp_path)
    text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert "x-1" in text or "x−1" in text, text


# The multilingual model's names (browser_models._multilingual_model), by script; the Arabic one
# is checked apart, since the PDF holds it shaped (presentation forms) and in visual order.
NON_LATIN_NAMES = ("多语言模型", "编码器", "Кодировщик", "внимание", "Ελληνικά", "デコーダ層", "디코더")
ARABIC_NAME = "مخرج"


def _pdf_fonts(data: bytes) -> dict[str, Any]:
    page = PdfReader(io.BytesIO(data)).pages[0]
    return {str(name): ref.get_object() for name, ref in page["/Resources"]["/Font"].items()}


def _embedded_glyphs(font: Any) -> dict[str, int]:
    """An embedded Type0 font's characters (its ToUnicode CMap) by their contour counts in the
    embedded TrueType file (CIDToGIDMap /Identity: a CID is a glyph index)."""
    from fontTools.ttLib import TTFont

    descendant = font["/DescendantFonts"][0].get_object()
    assert descendant["/CIDToGIDMap"] == "/Identity"
    program = TTFont(io.BytesIO(descendant["/FontDescriptor"]["/FontFile2"].get_object().get_data()))
    order = program.getGlyphOrder()
    glyf = program["glyf"]
    cmap = font["/ToUnicode"].get_object().get_data().decode("ascii")
    glyphs: dict[str, int] = {}
    for cid, code in re.findall(r"<([0-9a-fA-F]{4})>\s*<([0-9a-fA-F]{4,8})>", cmap):
        char = bytes.fromhex(code).decode("utf-16-be")
        glyphs[char] = glyf[order[int(cid, 16)]].numberOfContours if int(cid, 16) != 0 else 0
    return glyphs


def test_pdf_embeds_the_glyphs_of_non_latin_names(documents: Documents, open_viewer: OpenPage, tmp_path: Path,
                                                  artifacts: Path) -> None:
    doc = documents("multilingual")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")
    _, data = _download(viewer, "export-pdf", tmp_path)
    (artifacts / "export-multilingual.pdf").write_bytes(data)
    text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    for name in NON_LATIN_NAMES:
        assert name in text, (name, text)
    shaped = unicodedata.normalize("NFKC", text)
    assert ARABIC_NAME in shaped or ARABIC_NAME[::-1] in shaped, text
    embedded = [f for f in _pdf_fonts(data).values() if f["/Subtype"] == "/Type0"]
    assert embedded, "no embedded font"
    glyphs: dict[str, int] = {}
    for font in embedded:
        glyphs.update(_embedded_glyphs(font))
    wanted = {c for name in NON_LATIN_NAMES for c in name}
    # Each character has its own outline (contours, or components: -1), not the empty or .notdef glyph.
    assert {c: glyphs.get(c, 0) for c in wanted if glyphs.get(c, 0) == 0} == {}
    # Latin text of these names' lines ("72 params") is in the same font; Latin-only labels stay Helvetica.
    assert "/Helvetica" in {str(f.get("/BaseFont")) for f in _pdf_fonts(data).values()}
    assert "linear" in text


def test_a_latin_only_page_embeds_no_font(documents: Documents, open_viewer: OpenPage, tmp_path: Path) -> None:
    doc = documents("mlp")
    assert 'data-vista="font"' not in render_html(doc)
    viewer = open_viewer(doc, depth=99)
    _, data = _download(viewer, "export-pdf", tmp_path)
    fonts = _pdf_fonts(data)
    assert {str(f["/Subtype"]) for f in fonts.values()} == {"/Type1"}, fonts
    assert "@font-face" not in viewer.evaluate_handle("h => h.exportSVG()")
    assert viewer.page.evaluate("() => [...document.fonts].map(f => f.family)") == []


def test_the_page_and_the_svg_export_draw_non_latin_names_in_the_text_font(
        documents: Documents, open_viewer: OpenPage, tmp_path: Path, artifacts: Path) -> None:
    doc = documents("multilingual")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")
    # The page registered the font (its coverage: test_pdf_embeds_…), and the drawn texts list it.
    faces = viewer.page.evaluate("() => [...document.fonts].map(f => [f.family.replaceAll('\"', ''), f.status])")
    assert faces == [["Vista Text", "loaded"]], faces
    families = viewer.page.eval_on_selector_all(viewer.sel("svg.vista-graph text"),
                                                "ts => ts.map(t => t.getAttribute('font-family') ?? '')")
    assert families and all('"Vista Text"' in f for f in families if f), families
    root = ET.fromstring(viewer.evaluate_handle("h => h.exportSVG()"))
    styles = "".join("".join(s.itertext()) for s in root.iter(f"{SVG}style"))
    assert '@font-face{font-family:"Vista Text";src:url(data:font/ttf;base64,' in styles
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for name in NON_LATIN_NAMES:
        assert name in text
    _, png = _download(viewer, "export-png", tmp_path)
    (artifacts / "export-multilingual.png").write_bytes(png)
    # The PNG draws the names in the embedded font: the same SVG without it rasterizes otherwise.
    without = re.sub(r"<style[^>]*>@font-face.*?</style>", "", viewer.evaluate_handle("h => h.exportSVG()"), flags=re.S)
    fallback = viewer.page.evaluate("""async ([svg, w, h]) => {
      const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
      const image = new Image();
      await new Promise((resolve, reject) => { image.onload = resolve; image.onerror = reject; image.src = url; });
      const canvas = document.createElement("canvas");
      canvas.width = w; canvas.height = h;
      canvas.getContext("2d").drawImage(image, 0, 0, w, h);
      return canvas.toDataURL("image/png").split(",")[1];
    }""", [without, *Image.open(io.BytesIO(png)).size])
    drawn = Image.open(io.BytesIO(png)).convert("RGB")
    plain = Image.open(io.BytesIO(base64.b64decode(fallback))).convert("RGB")
    differing = sum(1 for a, b in zip(drawn.tobytes()[::3], plain.tobytes()[::3], strict=True) if abs(a - b) > 64)
    assert differing > 200, differing
    viewer.page.screenshot(path=str(artifacts / "multilingual-page.png"))


def test_a_latin_only_pdf_draws_the_viewer_s_symbols_in_ascii(documents: Documents, open_viewer: OpenPage,
                                                              tmp_path: Path) -> None:
    # Arrows (dtype transitions "fp32→bf16"), ellipses and Δ are outside WinAnsi, and call for no font.
    doc = copy.deepcopy(documents("mlp"))
    op = next(n for n in doc["nodes"] if n["kind"] == "op")
    op["label"] = "fp32→bf16…Δ"
    assert 'data-vista="font"' not in render_html(doc)
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")
    _, data = _download(viewer, "export-pdf", tmp_path)
    text = PdfReader(io.BytesIO(data)).pages[0].extract_text()
    assert "fp32->bf16...~" in text, text


def test_two_viewers_on_one_page_keep_their_own_fonts(documents: Documents, open_html: Callable[..., Any]) -> None:
    """Each viewer's font face claims only its own characters, so the second does not hide the first's."""
    first = copy.deepcopy(documents("mlp"))
    first["modules"][0]["class_name"] = "编码器"
    second = copy.deepcopy(documents("mlp"))
    second["modules"][0]["class_name"] = "디코더"

    def fragment(doc: dict[str, Any]) -> str:
        page = render_html(doc, height=400)
        return page[page.index('<div class="vista-page"'):page.rindex("</body>")]

    page = open_html(f"<!doctype html><html><body>{fragment(first)}{fragment(second)}</body></html>")
    for i in (1, 2):
        Viewer(page, f".vista-page:nth-of-type({i})").wait_ready()
    ranges = page.evaluate("() => [...document.fonts].map(f => f.unicodeRange)")
    assert len(ranges) == 2, ranges
    claims = [{c for c in "编码器디코더" if re.search(rf"U\+{ord(c):X}\b", r)} for r in ranges]
    assert sorted(map(sorted, claims)) == sorted([sorted("编码器"), sorted("디코더")]), ranges
    for i, name in ((1, "编码器"), (2, "디코더")):
        texts = page.eval_on_selector_all(f".vista-page:nth-of-type({i}) svg.vista-graph text",
                                          "ts => ts.map(t => t.textContent)")
        assert name in texts
