"""Tied and shared parameters: each call that reads one draws a node of its own, marked as
shared, whose details name the other calls and names; no edge carries it between calls."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from browser_page import OpenPage

pytestmark = pytest.mark.browser

Documents = Callable[[str], dict[str, Any]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_tied_lm_head_shows_its_own_shared_weight(documents: Documents, open_viewer: OpenPage, scheme: str,
                                                    artifacts: Path) -> None:
    doc = documents("t5")
    (tied,) = [s for s in doc["shared_tensors"] if s["name"] == "shared.weight"]
    modules = {m["id"]: m for m in doc["modules"]}
    nodes = {n["id"]: n for n in doc["nodes"]}
    head = next(m for m in doc["modules"] if m["path"] == "lm_head")
    weight = next(n for n in tied["nodes"] if nodes[n]["module"] == head["id"])
    viewer = open_viewer(doc, depth=1, color_scheme=scheme)
    viewer.click_toggle(head["id"])
    node = viewer.sel(f'g.vista-node[data-id="{weight}"]')
    viewer.page.wait_for_selector(node, state="attached")
    assert viewer.page.get_attribute(node, "data-shared") == "true"
    assert "shared" in (viewer.page.text_content(node) or "")
    # The head's unshared neighbours are not marked.
    others = viewer.page.eval_on_selector_all(viewer.sel("g.vista-node[data-shared]"),
                                              "els => els.map(e => e.dataset.id)")
    assert set(others) <= set(tied["nodes"])
    viewer.page.click(node)
    details = viewer.sel(".vista-details")
    viewer.page.wait_for_function("sel => (document.querySelector(sel)?.textContent ?? '').includes('Also read in')",
                                  arg=details)
    text = viewer.page.text_content(details) or ""
    assert f"read by {len(tied['nodes'])} module calls" in text
    for other in tied["nodes"]:
        if other != weight:
            assert modules[nodes[other]["module"]]["path"] in text
    assert "also named" in text and "shared.weight" in text  # the name no call above reads it by
    viewer.page.screenshot(path=str(artifacts / f"t5-shared-weight-{scheme}.png"))
