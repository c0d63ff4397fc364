"""The page as text: structure, escaping of model strings, determinism and size."""

from __future__ import annotations

import base64
import gzip
import hashlib
import html as html_lib
import json
import os
import re
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from render_models import HOSTILE_CLASS, HOSTILE_MESSAGE

import vista_core
from vista_render_html import read_html, render_html
from vista_render_html._bundle import ASSETS, bundle_bytes, static_bytes


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def _parse(page: str) -> _Elements:
    parser = _Elements()
    parser.feed(page)
    parser.close()
    return parser


def _raw_payload(page: str, name: str) -> bytes:
    found = re.findall(rf'<script type="application/octet-stream" data-vista="{name}">([A-Za-z0-9+/=]*)</script>', page)
    assert len(found) == 1, name
    return base64.b64decode(found[0], validate=True)


def _payload(page: str, name: str) -> bytes:
    return gzip.decompress(_raw_payload(page, name))


def test_page_structure(mlp_doc: dict[str, Any]) -> None:
    page = render_html(mlp_doc)
    assert page.startswith("<!doctype html>\n<html lang=\"en\">")
    assert page.rstrip().endswith("</html>")
    parsed = _parse(page)
    tags = [tag for tag, _ in parsed.tags]
    assert ("meta", {"charset": "utf-8"}) in parsed.tags
    assert parsed.title == "TinyMLP · Vista"
    assert "noscript" in tags
    assert "JavaScript" in page.split("<noscript>")[1].split("</noscript>")[0]
    # Nothing is loaded from anywhere: no external scripts, stylesheets, images or frames.
    for tag, attrs in parsed.tags:
        assert "src" not in attrs, (tag, attrs)
        assert "href" not in attrs, (tag, attrs)
        assert tag not in {"link", "iframe", "img", "object", "embed"}
    assert "http://" not in page
    assert "https://" not in page
    scripts = [attrs.get("type") for tag, attrs in parsed.tags if tag == "script"]
    # The viewer's code, Graphviz, the PDF chunk, the graph, the options, the loader.
    assert scripts == ["application/octet-stream"] * 4 + ["application/json", None]


def test_bundle_and_graph_are_embedded_compressed(mlp_graph: vista_core.Graph) -> None:
    page = render_html(mlp_graph)
    assert _payload(page, "bundle") == bundle_bytes()
    assert vista_core.Graph.from_dict(read_html(page)) == mlp_graph
    # Both are compressed: the page is smaller than the raw bundle plus the raw graph.
    assert len(page.encode("utf-8")) < len(bundle_bytes()) + len(mlp_graph.to_json()) + sum(
        len(static_bytes(f)) * 4 // 3 + 4 for f in ASSETS.values())


def test_assets_are_embedded_once_as_their_deflate_bytes(mlp_doc: dict[str, Any]) -> None:
    page = render_html(mlp_doc)
    wasm = zlib.decompress(_raw_payload(page, "graphviz"), wbits=-15)
    assert wasm[:4] == b"\0asm" and len(wasm) > 1_000_000  # Graphviz's WebAssembly, whole
    pdf = zlib.decompress(_raw_payload(page, "pdf"), wbits=-15).decode("utf-8")
    assert "__vistaChunk" in pdf and "jsPDF" in pdf
    assert _raw_payload(page, "graphviz") == static_bytes(ASSETS["graphviz"])
    # Not in the code as well: the code only names the parameter the loader passes them in.
    code = bundle_bytes().decode("utf-8")
    assert "__vistaAssets" in code and len(code) < 400_000
    assert 'new Function("__vistaAssets", code' in page


def test_pdf_chunk_leaves_out_what_vector_export_never_runs() -> None:
    # jsPDF's canvas emulation, html() and raster decoders (PNG, GIF, BMP, WebP) would be 0.5 MB
    # of code in every page; the SVG the viewer exports draws none of them.
    code = zlib.decompress(static_bytes(ASSETS["pdf"]), wbits=-15).decode("utf-8")
    assert len(code) < 350_000, f"{len(code)} bytes of PDF code"
    assert "fast-png is not part" in code and "html2canvas" not in code
    assert len(static_bytes(ASSETS["pdf"])) < 110_000


def test_model_strings_never_appear_raw(hostile_doc: dict[str, Any]) -> None:
    # The capture really holds the hostile strings...
    assert hostile_doc["modules"][0]["class_name"] == HOSTILE_CLASS
    assert HOSTILE_MESSAGE in hostile_doc["error"]["message"]
    page = render_html(hostile_doc)
    # ...and the page holds them only escaped or compressed.
    for raw in (HOSTILE_CLASS, HOSTILE_MESSAGE, "<script>alert(1)", "<img"):
        assert raw not in page
    assert page.count("</script>") == 6  # exactly the page's own six script elements
    parsed = _parse(page)
    assert parsed.title == f"{HOSTILE_CLASS} (ValueError) · Vista"
    assert f"<title>{html_lib.escape(HOSTILE_CLASS, quote=False)} (ValueError) · Vista</title>" in page
    assert [tag for tag, _ in parsed.tags].count("img") == 0


def test_hostile_title_option_is_escaped(mlp_doc: dict[str, Any]) -> None:
    title = "</title><script>alert(1)</script>"
    page = render_html(mlp_doc, title=title)
    assert title not in page
    assert _parse(page).title == title


def test_rendering_is_deterministic(mlp_graph: vista_core.Graph, hostile_doc: dict[str, Any]) -> None:
    for doc in (mlp_graph, hostile_doc):
        first = render_html(doc)
        assert render_html(doc) == first
        assert render_html(doc, depth=2) != first


def test_small_model_page_is_under_one_megabyte(mlp_doc: dict[str, Any]) -> None:
    size = len(render_html(mlp_doc).encode("utf-8"))
    assert size < 1_000_000, f"{size} bytes"
    # The viewer dominates: the page is the compressed code and the assets plus a little.
    viewer = len(base64.b64encode(gzip.compress(bundle_bytes(), mtime=0))) + sum(
        len(base64.b64encode(static_bytes(f))) for f in ASSETS.values())
    assert viewer < size < viewer + 20_000


def test_page_is_valid_utf8_with_non_ascii_strings(mlp_doc: dict[str, Any]) -> None:
    doc = {**mlp_doc, "modules": [{**mlp_doc["modules"][0], "class_name": "Réseau→Ω"}, *mlp_doc["modules"][1:]]}
    page = render_html(doc)
    assert "<title>Réseau→Ω · Vista</title>" in page
    assert _payload(page, "graph").count("Réseau→Ω".encode()) == 1


def test_payloads_carry_no_timestamp(mlp_doc: dict[str, Any]) -> None:
    page = render_html(mlp_doc)
    for name in ("bundle", "graph"):
        found = re.search(rf'data-vista="{name}">([A-Za-z0-9+/=]*)</script>', page)
        assert found is not None
        header = base64.b64decode(found.group(1))[:10]
        assert header[:2] == b"\x1f\x8b"  # gzip
        assert header[4:8] == b"\x00\x00\x00\x00"  # MTIME: none


def test_rendering_is_deterministic_across_processes(mlp_doc: dict[str, Any], tmp_path: Path) -> None:
    source = tmp_path / "doc.json"
    source.write_text(json.dumps(mlp_doc), encoding="utf-8")
    code = (
        "import hashlib, sys, vista_render_html\n"
        "text = open(sys.argv[1], encoding='utf-8').read()\n"
        "print(hashlib.sha256(vista_render_html.render_html(text, depth=2).encode()).hexdigest())\n"
    )
    digests = {
        subprocess.run([sys.executable, "-c", code, str(source)], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout.strip()
        for seed in ("1", "2")
    }
    expected = hashlib.sha256(render_html(mlp_doc, depth=2).encode()).hexdigest()
    assert digests == {expected}
