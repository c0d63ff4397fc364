"""Known-model snapshots: the document of every model in the registry, as users will see it.
A change to any snapshot is a change of what users see: review the diff like code.

Update with: nox -s integration -- --snapshot-update
"""

from __future__ import annotations

import pytest
from conftest import mask
from known_models import KNOWN_MODELS, Case
from syrupy.assertion import SnapshotAssertion

import vista_core


@pytest.mark.parametrize("name", sorted(KNOWN_MODELS))
def test_document_snapshot(name: str, snapshot: SnapshotAssertion) -> None:
    case: Case = KNOWN_MODELS[name]
    model, inputs, kwargs = case.build()
    result = vista_core.capture(model, inputs, kwargs=kwargs)
    if case.raises is None:
        assert result.exception is None, f"{name} raised {result.exception!r}"
    else:
        assert isinstance(result.exception, case.raises)
        assert result.graph.error is not None and result.graph.error.node is not None
    vista_core.validate_document(result.graph)
    assert vista_core.Graph.from_json(result.graph.to_json()) == result.graph
    assert mask(result.graph.to_dict()) == snapshot


@pytest.mark.parametrize("name", sorted(KNOWN_MODELS))
def test_graph_is_connected_from_inputs_to_outputs(name: str) -> None:
    """Every output is reachable from some input, parameter or constant through edges, and
    every op has the number of incoming edges its tensor arguments say."""
    case = KNOWN_MODELS[name]
    model, inputs, kwargs = case.build()
    graph = vista_core.capture(model, inputs, kwargs=kwargs).graph
    incoming: dict[str, list[str]] = {}
    for e in graph.edges:
        incoming.setdefault(e.target, []).append(e.source)
    kinds = {n.id: n.kind for n in graph.nodes}
    sources_reached: set[str] = set()

    def reaches_input(node: str, seen: set[str]) -> bool:
        if kinds[node] == "input":
            return True
        if node in seen:
            return False
        seen.add(node)
        return any(reaches_input(s, seen) for s in incoming.get(node, []))

    for node in graph.nodes:
        if node.kind == "output" and node.value is None:
            assert node.id in incoming, f"output {node.name} has no producer"
            assert reaches_input(node.id, set()), f"output {node.name} is not connected to an input"
            sources_reached.add(node.id)
        if node.kind == "op":
            tensor_args = sum(a.value.count("tensor#") for a in node.arguments)
            if "…" not in "".join(a.value for a in node.arguments):
                assert len(incoming.get(node.id, [])) >= min(tensor_args, 1), node.name
    assert sources_reached or case.raises is not None
