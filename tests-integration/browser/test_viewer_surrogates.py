"""Lone surrogates in a document's strings (a module named from non-UTF-8 bytes, an exception
message, a source path decoded with ``surrogateescape``): the page loads, the viewer reads every
string exactly as the document holds it, draws the graph and the error, and exports."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import torch
from browser_page import OpenPage

import vista_core

pytestmark = pytest.mark.browser

NAME = "blk-\udcff"
MESSAGE = "bad \ud800 shape"


class Named(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.add_module(NAME, torch.nn.Linear(3, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        getattr(self, NAME)(x)
        raise ValueError(MESSAGE)


def test_a_document_with_lone_surrogates_is_shown(open_viewer: OpenPage) -> None:
    result = vista_core.capture(Named(), torch.randn(2, 3))
    doc = result.graph.to_dict()
    sources = [n["source"] for n in doc["nodes"] if n.get("source")]
    assert sources
    for source in sources:
        source["file"] = "/home/u/caf\udce9/model.py"
    viewer = open_viewer(doc, depth=9)
    page = viewer.page
    # The page's JavaScript holds the document's strings themselves, lone surrogates included.
    read: list[str] = page.evaluate("""() => {
        const hex = (s) => [...s].map((c) => c.codePointAt(0).toString(16)).join(" ");
        return [...document.querySelectorAll('.vista-viewer text, .vista-error')]
            .map((e) => hex(e.textContent)).filter((h) => h.includes("dcff") || h.includes("d800"));
    }""")
    assert any("dcff" in h for h in read), "the module's name is drawn"
    assert any("d800" in h for h in read), "the error message is shown"
    svg = viewer.evaluate_handle("h => h.exportSVG()")
    assert ET.fromstring(svg.encode("utf-8", "replace")) is not None
