"""``read_html``: a saved page gives back exactly the document it embeds, or says why it cannot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import vista_core
from vista_render_html import DocumentError, SchemaVersionError, read_html, render_html, save_html
from vista_render_html._embed import document_payload
from vista_render_html._pack import pack_document, unpack_document

GRAPH = re.compile(r'(data-vista="graph">)([^<]*)(</script>)')


def _with_payload(page: str, payload: str) -> str:
    return GRAPH.sub(lambda m: m.group(1) + payload + m.group(3), page)


def test_a_saved_page_gives_back_its_document(mlp_graph: vista_core.Graph, tmp_path: Path) -> None:
    path = save_html(mlp_graph, tmp_path / "model.html", depth=1, theme="dark", title="Mine")
    document = read_html(path.read_text(encoding="utf-8"))
    assert document == mlp_graph.to_dict()
    assert vista_core.Graph.from_dict(document) == mlp_graph
    # Reading is the inverse of rendering: the page drawn from what was read is the same page.
    assert render_html(document, depth=1, theme="dark", title="Mine") == path.read_text(encoding="utf-8")


def _reached_twice(value: Any) -> list[int]:
    seen: set[int] = set()
    twice: list[int] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            if id(item) in seen:
                twice.append(id(item))
                continue
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return twice


def test_the_parts_of_the_document_read_are_independent(mlp_doc: dict[str, Any]) -> None:
    # The page's packed form shares equal parts (each module's equal "source", each equal tensor):
    assert _reached_twice(unpack_document(pack_document(mlp_doc)))
    document = read_html(render_html(mlp_doc))
    # ...which read_html must not hand out, or an edit of one module's source would change all.
    assert _reached_twice(document) == []
    assert document == mlp_doc


def test_a_diff_page_gives_back_its_diff(mlp_graph: vista_core.Graph) -> None:
    comparison = vista_core.diff(mlp_graph, mlp_graph)
    assert read_html(render_html(comparison)) == comparison.to_dict()


@pytest.mark.parametrize("text", ["", "<!doctype html><html><body>hello</body></html>", '{"schema_version": "1.0"}'])
def test_text_that_is_no_page_is_refused_saying_so(text: str) -> None:
    with pytest.raises(DocumentError, match=r"not a Vista page: it has 0 embedded graph elements"):
        read_html(text)


def test_two_pages_in_one_text_are_refused(mlp_doc: dict[str, Any]) -> None:
    page = render_html(mlp_doc)
    with pytest.raises(DocumentError, match=r"it has 2 embedded graph elements"):
        read_html(page + page)


@pytest.mark.parametrize("payload", ["not base64!", "aGVsbG8=", document_payload({"a": 1})[:-8] + "AAAAAAA="])
def test_a_changed_payload_is_refused_saying_what_to_do(mlp_doc: dict[str, Any], payload: str) -> None:
    with pytest.raises(DocumentError, match=r"embedded graph cannot be read: .* render it again"):
        read_html(_with_payload(render_html(mlp_doc), payload))


def test_a_page_of_another_schema_major_is_refused_naming_both(mlp_doc: dict[str, Any]) -> None:
    page = _with_payload(render_html(mlp_doc), document_payload({**mlp_doc, "schema_version": "9.0"}))
    with pytest.raises(SchemaVersionError, match=r"'9\.0'"):
        read_html(page)


def test_bytes_are_refused_with_how_to_read_the_text(mlp_doc: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match=r"pass the page's HTML text as str"):
        read_html(render_html(mlp_doc).encode("utf-8"))  # type: ignore[arg-type]
