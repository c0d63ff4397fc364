"""render_html and save_html of a diff document (vista_core.diff): read, checked, embedded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
from render_models import TinyMLP

import vista_core
from vista_render_html import DocumentError, SchemaVersionError, read_html, render_html, save_html


class _Wider(TinyMLP):
    """TinyMLP under another class name, with one more op at the end."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x) * 2


@pytest.fixture(scope="module")
def comparison() -> vista_core.GraphDiff:
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    return vista_core.diff(vista_core.trace(TinyMLP(), x), vista_core.trace(_Wider(), x))


def _embedded(page: str) -> Any:
    return read_html(page)


def test_a_diff_is_embedded_exactly_as_its_document(comparison: vista_core.GraphDiff) -> None:
    page = render_html(comparison)
    assert _embedded(page) == comparison.to_dict()
    assert render_html(comparison.to_dict()) == page
    assert render_html(comparison.to_json()) == page
    assert "<title>TinyMLP → _Wider (diff) · Vista</title>" in page


def test_the_title_of_a_diff_of_one_class_names_it_once() -> None:
    graph = vista_core.trace(TinyMLP(), torch.randn(3, 4))
    assert "<title>TinyMLP (diff) · Vista</title>" in render_html(vista_core.diff(graph, graph))


def test_save_html_writes_the_diff_page(tmp_path: Path, comparison: vista_core.GraphDiff) -> None:
    path = save_html(comparison, tmp_path / "diff.html", theme="dark")
    assert path.read_text(encoding="utf-8") == render_html(comparison, theme="dark")


def test_a_diff_of_another_major_names_both_versions(comparison: vista_core.GraphDiff) -> None:
    with pytest.raises(SchemaVersionError, match=r"diff version '7\.0'.*'1\.0'"):
        render_html(comparison.to_dict() | {"diff_version": "7.0"})


def test_a_broken_diff_document_says_what_is_wrong(comparison: vista_core.GraphDiff) -> None:
    data = comparison.to_dict()
    del data["union"]
    with pytest.raises(DocumentError, match="'union' must be a graph document"):
        render_html(data)
    data = comparison.to_dict()
    data["a"]["modules"] = []
    with pytest.raises(DocumentError, match=r"Diff document's 'a': .*root module call"):
        render_html(json.dumps(data))
