"""Deep and long models open on the page: nothing in the viewer recurses as deep as the model
nests, and a module of 20,000 ops lays out (Graphviz alone overflows its stack on such a chain).

The documents are written here directly (tracing such models takes longer than the page does):
every module call's path is its own name, as short as a user would write it.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest
from browser_page import OpenPage

pytestmark = pytest.mark.browser

PRODUCER = {"name": "test", "version": "0", "torch": "0", "python": "3"}


def _tensor() -> dict[str, Any]:
    return {"shape": [2, 4], "dtype": "float32", "device": "cpu"}


def _module(i: int, parent: int | None, name: str, class_name: str) -> dict[str, Any]:
    return {"id": f"m{i}", "parent": None if parent is None else f"m{parent}", "path": name, "name": name,
            "class_name": class_name, "class_qualname": f"test.{class_name}", "call_index": 0, "num_params": 0,
            "num_params_own": 0, "signature": f"s{i}"}


def _node(i: int, kind: str, name: str, module: int) -> dict[str, Any]:
    return {"id": f"n{i}", "kind": kind, "name": name, "label": name.rsplit(".", 1)[-1], "module": f"m{module}",
            "outputs": [_tensor()]}


def _edge(source: int, target: int) -> dict[str, Any]:
    return {"source": f"n{source}", "source_output": 0, "target": f"n{target}", "target_input": 0,
            "tensor": _tensor()}


def deep_nesting(depth: int) -> dict[str, Any]:
    """`depth` calls each inside the one before; one relu in the innermost."""
    modules = [_module(0, None, "", "Nest")] + [_module(d, d - 1, "inner", "Nest") for d in range(1, depth + 1)]
    nodes = [_node(0, "input", "x", 0), _node(1, "op", "torch.relu", depth), _node(2, "output", "out", 0)]
    return {"schema_version": "1.0", "producer": PRODUCER, "modules": modules, "nodes": nodes,
            "edges": [_edge(0, 1), _edge(1, 2)]}


def long_chain(ops: int) -> dict[str, Any]:
    """`ops` tanh ops in a chain, all in one module call `body`."""
    nodes = [_node(0, "input", "x", 0)] + [_node(i, "op", "torch.tanh", 1) for i in range(1, ops + 1)]
    nodes.append(_node(ops + 1, "output", "out", 0))
    return {"schema_version": "1.0", "producer": PRODUCER,
            "modules": [_module(0, None, "", "Chain"), _module(1, 0, "body", "Body")],
            "nodes": nodes, "edges": [_edge(i, i + 1) for i in range(ops + 1)]}


def test_ten_thousand_nested_calls_open(open_viewer: OpenPage) -> None:
    viewer = open_viewer(deep_nesting(10_000), height="600px")
    assert viewer.node_ids() == {"n0", "n2"}
    assert viewer.collapsed() == {"m1": 1}
    assert viewer.evaluate_handle("h => h.search('relu')") == ["n1"]
    # Depth 31 draws the model and 30 calls open, each inside the one before, and the 31st closed.
    viewer.evaluate_handle("h => h.setDepth(31)")
    viewer.page.wait_for_function(
        "() => document.querySelectorAll('.vista-viewer g.vista-module[data-state=expanded]').length === 31")
    assert viewer.state() == "ready"
    assert viewer.collapsed() == {"m31": 1}
    assert viewer.page.input_value(viewer.sel("input[data-control=depth]")) == "31"
    assert viewer.page.get_attribute(viewer.sel("input[data-control=depth]"), "max") == "10001"
    viewer.evaluate_handle("h => h.select('m31')")
    viewer.page.wait_for_function("() => !document.querySelector('.vista-viewer .vista-details').hidden")
    assert "Nest" in (viewer.page.text_content(viewer.sel(".vista-details")) or "")


def test_twenty_thousand_ops_in_one_module_lay_out(open_viewer: OpenPage) -> None:
    started = time.monotonic()
    viewer = open_viewer(long_chain(20_000), depth=2, height="600px")
    seconds = time.monotonic() - started
    # Drawn by window (view/virtual.ts): the page holds what is near the view, the export all of it.
    assert viewer.page.get_attribute(viewer.root, "data-items") == "20002"
    assert 0 < viewer.page.locator(viewer.sel("g.vista-node")).count() < 2_000
    drawn = viewer.evaluate_handle("""h => {
      const svg = new DOMParser().parseFromString(h.exportSVG(), 'image/svg+xml');
      const ys = [...svg.querySelectorAll('g.vista-node[data-kind="op"]')].map(
        (e) => [Number(e.dataset.id.slice(1)), Number(/,([-\\d.]+)\\)/.exec(e.getAttribute('transform'))[1])]);
      const count = (css) => svg.querySelectorAll(css).length;
      return { nodes: count('g.vista-node'), edges: count('g.vista-edge'), ys };
    }""")
    assert drawn["nodes"] == 20_002
    assert drawn["edges"] == 20_001
    # Every op below the one before: the chain reads top to bottom.
    ys = sorted(drawn["ys"])
    assert len(ys) == 20_000
    assert all(a[1] < b[1] for a, b in itertools.pairwise(ys))
    assert seconds < 60
