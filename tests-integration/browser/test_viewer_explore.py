"""Finding things: search and jump to a hit, the details panel of nodes and modules."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage, Viewer

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


def _deepest_node(doc: dict[str, Any], name_part: str) -> dict[str, Any]:
    depths = ex.module_depths(doc)
    found = [n for n in doc["nodes"] if name_part in n["name"] and n["kind"] == "op"]
    assert found, name_part
    return max(found, key=lambda n: depths[n["module"]])


def _search(viewer: Viewer, query: str) -> list[str]:
    box = viewer.sel('input[data-control="search"]')
    viewer.page.fill(box, query)  # the results list follows typing; Enter would jump to the first hit
    hits = viewer.sel(".vista-search-results [data-target-id]")
    viewer.page.wait_for_selector(hits, state="visible")
    ids: list[str] = viewer.page.eval_on_selector_all(hits, "els => els.map(e => e.dataset.targetId)")
    return ids


def test_search_finds_a_deep_node_and_jumping_opens_its_ancestors(documents: Documents,
                                                                  open_viewer: OpenPage) -> None:
    doc = documents("bert")
    target = _deepest_node(doc, "scaled_dot_product_attention")
    chain = ex.ancestors(doc, target["module"])
    assert len(chain) >= 4, "the node lies several modules deep"
    viewer = open_viewer(doc, depth=1)
    assert target["id"] not in viewer.node_ids()

    hits = _search(viewer, "scaled_dot")
    assert target["id"] in hits
    viewer.page.click(viewer.sel(f'.vista-search-results [data-target-id="{target["id"]}"]'))

    opened, unfolded = ex.open_at_depth(doc, 1)
    folds = {m: k for k, members in ex.folds(doc).items() for m in members}
    expected = ex.view(doc, opened | set(chain), unfolded | {folds[m] for m in chain if m in folds})
    viewer.wait_for_view(expected.nodes, expected.boxes)
    states = viewer.boxes()
    for module in chain[:-1]:
        assert states[module]["state"] == "expanded", module
    # The hit is selected: its details are shown.
    viewer.page.wait_for_function(
        "([sel, name]) => (document.querySelector(sel)?.textContent ?? '').includes(name)",
        arg=[viewer.sel(".vista-details"), target["name"]],
    )


@pytest.mark.parametrize(("query", "kind"), [("layer_norm", "node"), ("attention.self", "module"),
                                             ("BertIntermediate", "module")])
def test_search_by_op_path_and_class(query: str, kind: str, documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("bert")
    viewer = open_viewer(doc, depth=1)
    hits = _search(viewer, query)
    if kind == "node":
        expected = {n["id"] for n in doc["nodes"] if query in n["name"].lower() or query in n["label"].lower()}
    else:
        expected = {m["id"] for m in doc["modules"] if query in m["path"] or query in m["class_name"]}
    assert expected
    assert expected <= set(hits)


def test_details_of_a_module_show_class_path_and_parameters(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=2)
    module = next(m for m in doc["modules"] if m["path"] == "body.0")
    viewer.page.click(viewer.sel(f'g.vista-module[data-id="{module["id"]}"] text'))
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_function("sel => (document.querySelector(sel)?.textContent ?? '').includes('body.0')",
                                  arg=details)
    text = viewer.page.text_content(details)
    assert "Linear" in text
    assert "weight" in text
    assert "bias" in text
    assert "32×16" in text  # the weight's shape
    assert f"{module['num_params']}" in text or f"{module['num_params']:,}" in text
    assert "in_features=16" in text  # extra_repr


def test_details_of_a_node_show_op_shapes_and_source_line(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("mlp")
    viewer = open_viewer(doc, depth=99)
    viewer.evaluate_handle("h => h.expandAll()")  # depth stops at torch.nn layers
    node = next(n for n in doc["nodes"] if n["name"] == "torch.nn.functional.gelu")
    viewer.click_action("fit")  # the first view may show only part of a tall graph
    viewer.page.click(viewer.sel(f'g.vista-node[data-id="{node["id"]}"]'))
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_function("sel => (document.querySelector(sel)?.textContent ?? '').includes('gelu')",
                                  arg=details)
    text = viewer.page.text_content(details)
    assert "torch.nn.functional.gelu" in text
    assert "2×32" in text
    assert "float32" in text
    # Its non-tensor argument, by name and value.
    assert "approximate" in text
    assert "'none'" in text
    source = node["source"]
    assert os.path.basename(source["file"]) in text
    assert str(source["line"]) in text


def test_many_outputs_under_one_name_are_one_box_that_opens(documents: Documents, open_viewer: OpenPage) -> None:
    doc = documents("gpt2")  # 3 layers: a key and a value tensor each in its cache output
    cache = [n for n in doc["nodes"] if n["kind"] == "output" and n["name"].startswith(("cache.", "past_key_values."))]
    assert len(cache) == 6, [n["name"] for n in doc["nodes"] if n["kind"] == "output"]
    head = cache[0]["name"].split(".")[0]
    group = f"g:output:{head}"
    viewer = open_viewer(doc, depth=1)
    start = ex.view_at_depth(doc, 1)
    assert start.boxes[group] == 1
    viewer.wait_for_view(start.nodes, start.boxes)
    assert not {n["id"] for n in cache} & viewer.node_ids()
    box = viewer.sel(f'g.vista-module[data-id="{group}"]')
    lines = viewer.page.eval_on_selector_all(f"{box} text", "els => els.map(e => e.textContent)")
    assert lines[:2] == [head, "6 outputs"], lines

    # Its details list every member with its tensor.
    viewer.page.click(f"{box} text")
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_function("sel => (document.querySelector(sel)?.textContent ?? '').includes('outputs ×6')",
                                  arg=details)
    text = viewer.page.text_content(details)
    for node in cache:
        assert node["name"] in text
    assert "1×2×8×16" in text  # batch 1, 2 heads, 8 tokens, 32 / 2 features per head
    viewer.page.click(viewer.sel('button[data-action="close-details"]'))

    # + opens it like a module: the six outputs are drawn inside.
    viewer.click_toggle(group)
    opened, unfolded = ex.open_at_depth(doc, 1)
    after = ex.view(doc, opened | {group}, unfolded)
    assert {n["id"] for n in cache} <= after.nodes
    viewer.wait_for_view(after.nodes, after.boxes)

    # A search hit inside a closed group opens it.
    viewer.click_toggle(group)
    viewer.wait_for_view(start.nodes, start.boxes)
    target = cache[-1]
    hits = _search(viewer, target["name"])
    assert target["id"] in hits
    viewer.page.click(viewer.sel(f'.vista-search-results [data-target-id="{target["id"]}"]'))
    viewer.page.wait_for_selector(viewer.sel(f'g.vista-node[data-id="{target["id"]}"]'), state="attached")
