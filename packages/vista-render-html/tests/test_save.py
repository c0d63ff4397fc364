"""save_html writes render_html's page and returns where."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from vista_render_html import render_html, save_html


def test_save_writes_the_page_and_returns_the_resolved_path(mlp_doc: dict[str, Any], tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    result = save_html(mlp_doc, tmp_path / "sub" / ".." / "model.html", depth=2, theme="light")
    assert result == (tmp_path / "model.html").resolve()
    assert result.is_absolute()
    assert result.read_bytes() == render_html(mlp_doc, depth=2, theme="light").encode("utf-8")


def test_save_accepts_str_paths_and_relative_paths(mlp_doc: dict[str, Any], tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = save_html(mlp_doc, "rel.html")
    assert result == tmp_path.resolve() / "rel.html"
    assert result.read_text(encoding="utf-8") == render_html(mlp_doc)
    assert save_html(mlp_doc, str(tmp_path / "abs.html")).is_file()


def test_save_replaces_an_existing_file(mlp_doc: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "model.html"
    target.write_text("old", encoding="utf-8")
    save_html(mlp_doc, target)
    assert target.read_text(encoding="utf-8").startswith("<!doctype html>")


@pytest.mark.parametrize("path", [None, 5, b"bytes.html", ""])
def test_bad_path_types(mlp_doc: dict[str, Any], path: object) -> None:
    with pytest.raises(TypeError, match=r"Invalid 'path' argument: .*; pass a file path"):
        save_html(mlp_doc, path)  # type: ignore[arg-type]


def test_directory_and_missing_parent(mlp_doc: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(IsADirectoryError, match=r"is a directory"):
        save_html(mlp_doc, tmp_path)
    with pytest.raises(FileNotFoundError, match=r"does not exist; create it first"):
        save_html(mlp_doc, tmp_path / "missing" / "model.html")
    assert not (tmp_path / "missing").exists()
    assert os.listdir(tmp_path) == []
