"""A malformed graph document gives a page that says which field is wrong and what it holds,
never a minified JavaScript error ("Cannot read properties of undefined (reading 'length')")."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_page import Viewer, Watch
from playwright.sync_api import Page

from vista_render_html import render_html

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]

SUFFIX = " Check the document with vista_core.validate_document(document)."


def _first_linear(doc: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    i, node = next((i, n) for i, n in enumerate(doc["nodes"]) if n["name"] == "torch.nn.functional.linear")
    return i, node


# (what, edit of the mlp document, expected message given the document): each of these drew a
# graph that failed later, or failed with a minified TypeError, before the page checked the schema.
def _missing_label(doc: dict[str, Any]) -> str:
    i, node = _first_linear(doc)
    node.pop("label")
    return f'nodes[{i}].label is missing (node "{node["id"]}").'


def _missing_path(doc: dict[str, Any]) -> str:
    doc["modules"][1].pop("path")
    return f'modules[1].path is missing (module "{doc["modules"][1]["id"]}").'


def _null_class_name(doc: dict[str, Any]) -> str:
    doc["modules"][1]["class_name"] = None
    return f'modules[1].class_name must be a string, got null (module "{doc["modules"][1]["id"]}").'


def _wrong_kind(doc: dict[str, Any]) -> str:
    i, node = _first_linear(doc)
    node["kind"] = "opp"
    return (f'nodes[{i}].kind must be one of "input", "output", "parameter", "buffer", "constant", "op", '
            f'"error", got "opp" (node "{node["id"]}").')


def _string_shape(doc: dict[str, Any]) -> str:
    edge = doc["edges"][2]
    edge["tensor"]["shape"] = "2x32"
    return f'edges[2].tensor.shape must be an array, got "2x32" (edge "{edge["source"]}" -> "{edge["target"]}").'


def _null_node(doc: dict[str, Any]) -> str:
    doc["nodes"][3] = None
    return "nodes[3] must be an object, got null."


def _string_error(doc: dict[str, Any]) -> str:
    doc["error"] = "boom"
    return 'error must be an object, got "boom".'


def _dangling_edge(doc: dict[str, Any]) -> str:
    edge = doc["edges"][2]
    edge["target"] = "n999"
    return f'edges[2].target is "n999", which is no node\'s id (edge "{edge["source"]}" -> "n999").'


def _parent_cycle(doc: dict[str, Any]) -> str:
    first, second = doc["modules"][1], doc["modules"][2]
    first["parent"], second["parent"] = second["id"], first["id"]
    return (f'modules[1].parent is "{second["id"]}", which makes the module calls a cycle instead of a tree '
            f'("{first["id"]}" -> "{second["id"]}" -> "{first["id"]}").')


CASES: dict[str, Callable[[dict[str, Any]], str]] = {
    "missing field": _missing_label,
    "missing module path": _missing_path,
    "null instead of a string": _null_class_name,
    "value outside the enum": _wrong_kind,
    "wrong type": _string_shape,
    "null node": _null_node,
    "error as a string": _string_error,
    "dangling edge id": _dangling_edge,
    "parent cycle": _parent_cycle,
}
# The schema cannot see ids that dangle or loop, so validate_document is no help there.
REFERENCES = {"dangling edge id", "parent cycle"}


def _message(page: Page, viewer: Viewer, watch: Watch) -> str:
    page.wait_for_selector(f"{viewer.root}[data-state=error-rendering]", state="attached")
    box = viewer.sel(".vista-message")
    assert page.is_visible(box)
    text = page.inner_text(box)
    # The loader reports the rejected `ready` on the console (checked here, not at teardown).
    for _ in range(40):
        if watch.console_errors:
            break
        page.wait_for_timeout(50)
    assert len(watch.console_errors) == 1
    assert "DocumentError" in watch.console_errors[0]
    watch.console_errors.clear()
    return text


@pytest.mark.parametrize("case", CASES)
def test_a_malformed_document_names_the_field_and_value(case: str, documents: Documents, watch: Watch,
                                                         open_html: Callable[..., Page]) -> None:
    doc = copy.deepcopy(documents("mlp"))
    expected = CASES[case](doc)
    page = open_html(render_html(doc))
    text = _message(page, Viewer(page), watch)
    assert "Cannot read properties" not in text and "is not a function" not in text
    suffix = "" if case in REFERENCES else SUFFIX
    assert text == f"Vista could not draw this graph: Invalid graph document: {expected}{suffix}"
    assert watch.page_errors == []


@pytest.mark.parametrize(("where", "value", "shown"), [
    ("shape", float("nan"), "NaN"), ("num_params", float("inf"), "Infinity"),
])
def test_nan_and_infinity_are_named(where: str, value: float, shown: str, documents: Documents, watch: Watch,
                                    open_html: Callable[..., Page], artifacts: Path) -> None:
    # JSON has no NaN and render_html refuses it, so such a document reaches a viewer only
    # through VistaViewer.mount from a page's own script; Playwright passes NaN and Infinity as such.
    doc = copy.deepcopy(documents("mlp"))
    page = open_html(render_html(documents("mlp"), height="400px"))
    Viewer(page).wait_ready()
    if where == "shape":
        i, node = _first_linear(doc)
        node["outputs"][0]["shape"][1] = value
        expected = f'nodes[{i}].outputs[0].shape[1] must be an integer ≥ 0, got {shown} (node "{node["id"]}").'
    else:
        module = next(m for m in doc["modules"] if m.get("parameters"))
        i = doc["modules"].index(module)
        module["num_params"] = value
        expected = f'modules[{i}].num_params must be an integer ≥ 0, got {shown} (module "{module["id"]}").'
    page.evaluate(
        """doc => {
            const box = document.createElement("div");
            box.id = "second";
            box.style.height = "400px";
            document.body.appendChild(box);
            VistaViewer.mount(box, doc, {}).ready.catch((e) => console.error(String(e)));
        }""",
        doc,
    )
    text = _message(page, Viewer(page, "#second"), watch)
    assert text == f"Vista could not draw this graph: Invalid graph document: {expected}{SUFFIX}"
    if where == "shape":
        page.screenshot(path=str(artifacts / "malformed-nan.png"))


def test_a_malformed_node_outside_the_first_view_is_named_after_it_is_drawn(
        documents: Documents, watch: Watch, open_html: Callable[..., Page]) -> None:
    # The first view checks what it draws; the rest of the document is checked after the first
    # draw, in slices, and a problem there still replaces the view with the schema's message.
    doc = copy.deepcopy(documents("llama_32"))
    i = max(i for i, n in enumerate(doc["nodes"]) if n["kind"] == "op" and n["outputs"])
    node = doc["nodes"][i]
    node["outputs"][0]["dtype"] = 7
    page = open_html(render_html(doc, depth=1))
    viewer = Viewer(page)
    text = _message(page, viewer, watch)
    assert text == ("Vista could not draw this graph: Invalid graph document: "
                    f'nodes[{i}].outputs[0].dtype must be a string, got 7 (node "{node["id"]}").{SUFFIX}')
    marks = page.evaluate("() => performance.getEntriesByType('mark').map((m) => m.name)")
    assert "vista:drawn" in marks and "vista:document-checked" not in marks
    # Nothing of the refused document stays drawn under the message.
    assert not page.is_visible(viewer.sel(".vista-canvas > svg"))
    assert watch.page_errors == []
