"""Readers that take a notebook output apart: the frame, its page, the graph inside."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from typing import Any

from vista_render_html import read_html


class _FrameParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.frames: list[dict[str, str | None]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "iframe":
            self.frames.append(dict(attrs))


def parse_frames(html_text: str) -> tuple[list[dict[str, str | None]], list[str]]:
    """The attributes of every <iframe> in ``html_text`` (entities decoded), and all start tags."""
    parser = _FrameParser()
    parser.feed(html_text)
    parser.close()
    return parser.frames, parser.tags


def frame_page(html_text: str) -> str:
    """The page inside the single frame of a notebook output."""
    frames, _ = parse_frames(html_text)
    assert len(frames) == 1, f"expected one <iframe>, found {len(frames)}"
    srcdoc = frames[0]["srcdoc"]
    assert srcdoc is not None
    return srcdoc


class _PayloadParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.payloads: dict[str, str] = {}
        self._current: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._current = dict(attrs).get("data-vista") if tag == "script" else None

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self.payloads[self._current] = self.payloads.get(self._current, "") + data

    def handle_endtag(self, tag: str) -> None:
        self._current = None


def page_parts(page: str) -> dict[str, str]:
    """The page's embedded parts by ``data-vista`` name (``graph``, ``bundle``, ``options``)."""
    parser = _PayloadParser()
    parser.feed(page)
    return parser.payloads


def page_graph(page: str) -> dict[str, Any]:
    """The graph document embedded in a Vista page."""
    return read_html(page)


def page_options(page: str) -> dict[str, Any]:
    """The ViewerOptions the page passes to VistaViewer.mount()."""
    data: dict[str, Any] = json.loads(page_parts(page)["options"])
    return data
