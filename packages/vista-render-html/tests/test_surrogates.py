"""Lone surrogates (file names decoded with ``surrogateescape``, names and messages made from
bytes) in any string of a document: the page is still valid UTF-8, the viewer gets every string
exactly as the document holds it, and text shown by the page itself gets U+FFFD instead."""

from __future__ import annotations

import base64
import gzip
import re
from pathlib import Path
from typing import Any

import pytest
import torch
from render_models import TinyMLP

import vista_core
from vista_render_html import read_html, render_html, save_html
from vista_render_html._pack import pack_document, packed_bytes

NAME = "blk-\udcff"  # what os.fsdecode makes of the byte 0xff
MESSAGE = "bad \ud800 shape"  # a lone high surrogate: surrogateescape cannot encode it either


class Surrogates(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.add_module(NAME, TinyMLP())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        getattr(self, NAME)(x)
        raise ValueError(MESSAGE)


@pytest.fixture(scope="module")
def graph() -> vista_core.Graph:
    result = vista_core.capture(Surrogates(), torch.randn(3, 4))
    assert isinstance(result.exception, ValueError)
    assert NAME in [m.path for m in result.graph.modules]
    assert result.graph.error is not None and MESSAGE in result.graph.error.message
    return result.graph


def _graph_payload(page: str) -> Any:
    return read_html(page)


def _title(page: str) -> str:
    found = re.findall(r"<title>(.*)</title>", page)
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("form", ["graph", "dict", "json"])
def test_render_html_keeps_every_string_exactly(graph: vista_core.Graph, form: str) -> None:
    document = {"graph": graph, "dict": graph.to_dict(), "json": graph.to_json()}[form]
    page = render_html(document)
    page.encode("utf-8")  # no lone surrogate left in the page text
    assert _graph_payload(page) == graph.to_dict()  # escaped, so the viewer reads them unchanged


def test_a_document_without_surrogates_is_embedded_as_before(mlp_doc: dict[str, Any]) -> None:
    """Non-ASCII text stays raw UTF-8 in the payload; only lone surrogates are escaped."""
    data = {**mlp_doc, "modules": [*mlp_doc["modules"][:1], {**mlp_doc["modules"][1], "path": "réseau→Ω"},
                                   *mlp_doc["modules"][2:]]}
    raw = gzip.decompress(base64.b64decode(re.findall(r'data-vista="graph">([^<]*)<', render_html(data))[0]))
    assert raw == packed_bytes(pack_document(data))
    assert "réseau→Ω".encode() in raw


def test_titles_show_a_replacement_character(graph: vista_core.Graph) -> None:
    data = graph.to_dict()
    data["modules"][0]["class_name"] = "Net\udcff"  # a document read from JSON can hold one anywhere
    assert _title(render_html(data)) == "Net\ufffd (ValueError) · Vista"
    assert _title(render_html(graph, title="run \ud800 7")) == "run \ufffd 7"
    assert _graph_payload(render_html(data))["modules"][0]["class_name"] == "Net\udcff"


def test_save_html_writes_the_page(graph: vista_core.Graph, tmp_path: Path) -> None:
    data = graph.to_dict()
    data["modules"][0]["class_name"] = "Net\udcff"
    written = save_html(data, tmp_path / "page.html", title="t\udcff")
    assert written.read_bytes() == render_html(data, title="t\udcff").encode("utf-8")
    assert _graph_payload(written.read_text(encoding="utf-8")) == data


def test_save_html_to_a_path_with_a_surrogate(graph: vista_core.Graph, tmp_path: Path) -> None:
    """A path from os.fsdecode of non-UTF-8 bytes names a real file; save_html writes it."""
    target = tmp_path / "model-\udcff.html"
    written = save_html(graph, target)
    assert written == target.resolve()
    assert written.read_bytes() == render_html(graph).encode("utf-8")
