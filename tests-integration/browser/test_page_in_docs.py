"""A saved page embedded in documentation (Sphinx, MkDocs) with the README's one iframe line:
the viewer draws inside the frame and fills it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_page import READY_TIMEOUT_MS
from playwright.sync_api import Page

from vista_render_html import save_html

pytestmark = pytest.mark.browser

README = Path(__file__).resolve().parents[2] / "README.md"


def _readme_iframe() -> str:
    lines = [line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("<iframe")]
    assert len(lines) == 1, "the README shows one iframe line for docs"
    return lines[0]


def test_the_readme_iframe_shows_the_saved_page(documents: Callable[[str], dict[str, Any]], tmp_path: Path,
                                                open_html: Callable[..., Page]) -> None:
    line = _readme_iframe()
    found = re.search(r'src="([^"]+)"', line)
    assert found is not None
    save_html(documents("mlp"), tmp_path / found.group(1))
    docs = f"<!doctype html><html><body><h1>Model</h1><p>The forward pass:</p>\n{line}\n</body></html>"
    page = open_html(docs, name="docs.html")
    frame = page.frame_locator("iframe")
    frame.locator(".vista-viewer[data-state=ready]").wait_for(state="attached", timeout=READY_TIMEOUT_MS)
    assert frame.locator(".vista-viewer g.vista-node").count() > 0
    outer = page.eval_on_selector("iframe", "f => f.getBoundingClientRect().height")
    inner = frame.locator(".vista-viewer").evaluate("v => v.getBoundingClientRect().height")
    assert outer == 600
    assert abs(inner - outer) <= 2, (inner, outer)
