"""Export of the current view: a valid SVG, a PNG and a vector PDF, as downloads."""

from __future__ import annotations

import copy
import io
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage, Viewer
from PIL import Image
from pypdf import PdfReader

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
