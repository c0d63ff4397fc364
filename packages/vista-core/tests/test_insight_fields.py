"""The schema 1.1 insight fields as documents: op and module ``time_us``, tensor ``stats`` and the
document's ``first_nonfinite``: typed records, JSON round trip, validation, and 1.0 readers."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from typing import Any

import jsonschema
import pytest
import torch

import vista_core
from vista_core import Graph, SchemaError, TensorStats


def _with_insight(graph: Graph) -> Graph:
    """``graph`` with every insight field set, as a trace with stats and timing writes them."""
    stats = TensorStats(min=-1.5, max=2.0, mean=0.25, std=1.0, nan=0, posinf=0, neginf=0, zeros=3)
    empty = TensorStats(min=None, max=None, mean=None, std=None, nan=0, posinf=0, neginf=0, zeros=0)
    nodes = []
    for i, n in enumerate(graph.nodes):
        if n.kind == "op":
            outputs = tuple(dataclasses.replace(t, stats=stats if i % 2 else empty) for t in n.outputs)
            n = dataclasses.replace(n, outputs=outputs, time_us=12.5 + i)
        nodes.append(n)
    modules = tuple(dataclasses.replace(m, time_us=100.0 + i) for i, m in enumerate(graph.modules))
    first = next(n.id for n in nodes if n.kind == "op")
    return dataclasses.replace(graph, nodes=tuple(nodes), modules=modules, first_nonfinite_id=first)


@pytest.fixture(scope="module")
def graph() -> Graph:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    return _with_insight(vista_core.trace(model, torch.randn(2, 3)))


def test_the_fields_have_the_issue_names_in_the_document(graph: Graph) -> None:
    data = graph.to_dict()
    op = next(n for n in data["nodes"] if n["kind"] == "op")
    assert op["time_us"] == 12.5 + int(op["id"][1:])
    assert set(op["outputs"][0]["stats"]) == {"min", "max", "mean", "std", "nan", "posinf", "neginf", "zeros"}
    assert data["modules"][0]["time_us"] == 100.0
    assert data["first_nonfinite"] == op["id"]
    assert "first_nonfinite_id" not in data
    # Null statistics are written as null (the field is there, its value unknown).
    stats = [t["stats"] for n in data["nodes"] for t in n.get("outputs", []) if "stats" in t]
    nulls = [s for s in stats if s["min"] is None]
    assert nulls and all(s["std"] is None and s["zeros"] == 0 for s in nulls)


def test_they_round_trip_and_validate(graph: Graph) -> None:
    assert Graph.from_json(graph.to_json()) == graph
    assert Graph.from_dict(graph.to_dict()) == graph
    vista_core.validate_document(graph)


def test_first_nonfinite_gives_the_node(graph: Graph) -> None:
    node = graph.first_nonfinite
    assert node is not None and node.id == graph.first_nonfinite_id and node.kind == "op"
    plain = dataclasses.replace(graph, first_nonfinite_id=None)
    assert plain.first_nonfinite is None
    assert "first_nonfinite" not in plain.to_dict()


def test_first_nonfinite_may_be_null_and_must_name_a_node(graph: Graph) -> None:
    data = graph.to_dict()
    data["first_nonfinite"] = None
    assert Graph.from_dict(data).first_nonfinite is None
    vista_core.validate_document(data)
    data["first_nonfinite"] = "n999"
    with pytest.raises(SchemaError, match=r"\$\.first_nonfinite refers to unknown node 'n999'"):
        Graph.from_dict(data)


@pytest.mark.parametrize("value", [math.nan, math.inf, "1.0", True])
def test_a_statistic_that_is_no_finite_number_is_refused_naming_it(graph: Graph, value: Any) -> None:
    data = graph.to_dict()
    op = next(i for i, n in enumerate(data["nodes"]) if n["kind"] == "op")
    data["nodes"][op]["outputs"][0]["stats"]["mean"] = value
    with pytest.raises(SchemaError, match=rf"\$\.nodes\[{op}\]\.outputs\[0\]\.stats\.mean"):
        Graph.from_dict(data)


def test_a_statistic_missing_is_refused(graph: Graph) -> None:
    data = graph.to_dict()
    op = next(i for i, n in enumerate(data["nodes"]) if n["kind"] == "op")
    del data["nodes"][op]["outputs"][0]["stats"]["nan"]
    with pytest.raises(SchemaError, match=r"stats is missing the required field 'nan'"):
        Graph.from_dict(data)
    with pytest.raises(SchemaError, match=r"stats"):
        vista_core.validate_document(data)


def test_integer_times_are_read_as_numbers(graph: Graph) -> None:
    data = graph.to_dict()
    data["modules"][0]["time_us"] = 7
    assert Graph.from_dict(data).root.time_us == 7.0


def _one_zero_schema() -> dict[str, Any]:
    """The 1.0 JSON Schema: the shipped one without its "Since 1.1" fields, as a 1.0 reader
    has it, in the lenient form a reader uses for a newer minor."""
    schema = vista_core.schema()

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                node["properties"] = {k: v for k, v in props.items()
                                      if not str(v.get("description", "")).startswith("Since 1.1")}
                if "stats" in node["properties"]:  # a $ref: its own description is on the target
                    del node["properties"]["stats"]
            node.pop("additionalProperties", None) if node.get("additionalProperties") is False else None
            for v in node.values():
                strip(v)
        elif isinstance(node, list):
            for v in node:
                strip(v)
        return node

    return strip(copy.deepcopy(schema))


def test_a_one_zero_reader_reads_a_document_with_the_insight_fields(graph: Graph) -> None:
    old = _one_zero_schema()
    assert "time_us" not in old["$defs"]["node"]["properties"]
    assert "first_nonfinite" not in old["properties"]
    jsonschema.Draft202012Validator(old).validate(json.loads(graph.to_json()))
    # And this reader keeps the fields of a newer minor: a 1.2 document with them reads too.
    newer = graph.to_dict()
    newer["schema_version"] = "1.2"
    assert Graph.from_dict(newer).to_dict() == newer
