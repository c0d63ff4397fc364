"""A repeated run with glue between its calls (`h = h + sigmoid(step(h))`) is one "×N" box
holding the glue; unfolding it brings the glue back between the calls."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import browser_expectations as ex
import pytest
from browser_page import OpenPage

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_loop_with_glue_folds_into_one_box(documents: Documents, open_viewer: OpenPage, scheme: str,
                                             artifacts: Path) -> None:
    doc = documents("steps")
    (block,) = doc["repeated_blocks"]
    modules = {m["id"]: m for m in doc["modules"]}
    assert [modules[m]["path"] for m in block["modules"]] == ["steps.0", "steps.1", "steps.2", "steps.3"]
    assert len(block["glue"]) == 8  # after each step, the last one's too
    viewer = open_viewer(doc, depth=1, color_scheme=scheme)
    expected = ex.view_at_depth(doc, 1)
    viewer.wait_for_view(expected.nodes, expected.boxes)
    drawn = viewer.node_ids()
    assert not drawn & set(block["glue"])
    assert viewer.collapsed()[block["modules"][0]] == 4
    assert modules[block["modules"][0]]["path"] != "pos"
    viewer.page.click(viewer.sel(f'g.vista-module[data-id="{block["modules"][0]}"] text'))
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_function("sel => (document.querySelector(sel)?.textContent ?? '').includes('after each call')",
                                  arg=details)
    assert "sigmoid, add" in (viewer.page.text_content(details) or "")
    viewer.page.screenshot(path=str(artifacts / f"steps-folded-{scheme}.png"))
    # + shows the first call open and the rest (glue too) in one box, whose + unfolds the run:
    # the glue is drawn between the calls.
    key = block["modules"][0]
    viewer.click_toggle(key)
    opened, unfolded = ex.open_at_depth(doc, 1)
    peeked = ex.view(doc, opened | {key}, unfolded, peek={key})
    viewer.wait_for_view(peeked.nodes, peeked.boxes)
    assert not set(block["glue"]) & viewer.node_ids()
    viewer.click_action("fit")
    viewer.click_toggle(block["modules"][1])
    after = ex.view(doc, opened | {key}, unfolded | {key})
    viewer.wait_for_view(after.nodes, after.boxes)
    assert set(block["glue"]) <= viewer.node_ids()
    viewer.page.screenshot(path=str(artifacts / f"steps-unfolded-{scheme}.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_norm_module_after_each_block_folds_into_the_box(documents: Documents, open_viewer: OpenPage, scheme: str,
                                                          artifacts: Path) -> None:
    doc = documents("normed")
    (block,) = doc["repeated_blocks"]
    modules = {m["id"]: m for m in doc["modules"]}
    assert [modules[m]["path"] for m in block["glue_modules"]] == ["norm"] * 4
    viewer = open_viewer(doc, depth=1, color_scheme=scheme)
    expected = ex.view_at_depth(doc, 1)
    assert set(expected.boxes) == {block["modules"][0]}
    viewer.wait_for_view(expected.nodes, expected.boxes)
    assert viewer.collapsed()[block["modules"][0]] == 4
    viewer.page.click(viewer.sel(f'g.vista-module[data-id="{block["modules"][0]}"] text'))
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_function("sel => (document.querySelector(sel)?.textContent ?? '').includes('after each call')",
                                  arg=details)
    assert "add, LayerNorm" in (viewer.page.text_content(details) or "")
    viewer.page.screenshot(path=str(artifacts / f"normed-folded-{scheme}.png"))
    key = block["modules"][0]
    viewer.click_toggle(key)
    opened, unfolded = ex.open_at_depth(doc, 1)
    peeked = ex.view(doc, opened | {key}, unfolded, peek={key})
    assert not set(block["glue_modules"]) & set(peeked.boxes), "the norms are in the box of the other calls"
    viewer.wait_for_view(peeked.nodes, peeked.boxes)
    viewer.click_action("fit")
    viewer.click_toggle(block["modules"][1])
    after = ex.view(doc, opened | {key}, unfolded | {key})
    assert set(block["glue_modules"]) & set(after.boxes)
    viewer.wait_for_view(after.nodes, after.boxes)
    viewer.page.screenshot(path=str(artifacts / f"normed-unfolded-{scheme}.png"))
