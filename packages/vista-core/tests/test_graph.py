"""The document: JSON round trip, strict reading, schema versions, the shipped JSON Schema."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import re
import typing
from typing import Any

import pytest
import torch

import vista_core
from vista_core import Graph, SchemaError, SchemaVersionError, _graph


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    return vista_core.trace(model, torch.randn(2, 3)).to_dict()


def test_round_trip_through_json_is_lossless(document: dict[str, Any]) -> None:
    graph = Graph.from_dict(document)
    assert Graph.from_json(graph.to_json()) == graph
    assert graph.to_dict() == document
    assert json.loads(graph.to_json(indent=2)) == document


def test_document_carries_schema_and_producer_versions(document: dict[str, Any]) -> None:
    assert document["schema_version"] == vista_core.SCHEMA_VERSION
    assert document["producer"]["name"] == "vista-core"
    assert document["producer"]["version"] == vista_core.__version__
    assert document["producer"]["torch"] == torch.__version__


def test_documents_validate_against_the_shipped_json_schema(document: dict[str, Any]) -> None:
    vista_core.validate_document(document)
    vista_core.validate_document(json.dumps(document))
    assert vista_core.schema()["title"].startswith("Vista graph document")


def test_a_newer_minor_version_is_read(document: dict[str, Any]) -> None:
    newer = dict(document, schema_version="1.7")
    assert Graph.from_dict(newer).schema_version == "1.7"


def test_an_unknown_major_version_is_refused_naming_both_versions(document: dict[str, Any]) -> None:
    newer = dict(document, schema_version="2.0")
    with pytest.raises(SchemaVersionError, match=r"schema version '2\.0'.*reads schema version '1\.1'"):
        Graph.from_dict(newer)
    with pytest.raises(SchemaVersionError):
        vista_core.validate_document(newer)


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda d: d.pop("nodes"), r"\$ is missing the required field 'nodes'"),
        (lambda d: d["nodes"][0].update(kind="tensor"), r"\$\.nodes\[0\]\.kind must be one of"),
        (lambda d: d["nodes"][1].update(module="m99"), r"\$\.nodes\[1\]\.module refers to unknown module 'm99'"),
        (lambda d: d["edges"][0].update(source="n999"), r"\$\.edges\[0\] refers to unknown node 'n999'"),
        (lambda d: d["edges"][0].update(source_output=5), r"source_output 5 is out of range"),
        (lambda d: d["modules"][0].update(extra=1), r"unknown field\(s\) \['extra'\]"),
        (lambda d: d["edges"][0]["tensor"].update(shape="2x3"), r"\$\.edges\[0\]\.tensor\.shape must be an array"),
        (lambda d: d.update(schema_version=1), r"no valid 'schema_version'"),
    ],
)
def test_malformed_documents_are_refused_with_the_place(document: dict[str, Any], mutate: Any, match: str) -> None:
    broken = copy.deepcopy(document)
    mutate(broken)
    with pytest.raises(SchemaError, match=match):
        Graph.from_dict(broken)


def test_json_schema_catches_what_it_describes(document: dict[str, Any]) -> None:
    broken = copy.deepcopy(document)
    broken["nodes"][0]["id"] = "node-zero"
    with pytest.raises(SchemaError, match=r"at \$\.nodes\[0\]\.id"):
        vista_core.validate_document(broken)


def test_reading_bad_json_text() -> None:
    with pytest.raises(SchemaError, match="not valid JSON"):
        Graph.from_json("{nope")
    with pytest.raises(SchemaError, match=r"takes JSON text \(str or bytes\), got dict.*Graph\.from_dict"):
        Graph.from_json({"a": 1})  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="must be a JSON object, got list"):
        Graph.from_dict([1, 2])  # type: ignore[arg-type]


def test_schema_lookup_errors() -> None:
    with pytest.raises(ValueError, match="No JSON Schema for schema major version 3"):
        vista_core.schema(3)
    with pytest.raises(TypeError, match=r"Invalid 'major' argument: '1'"):
        vista_core.schema("1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Invalid 'document' argument: 5 \(type int\)"):
        vista_core.validate_document(5)  # type: ignore[arg-type]


def test_graph_helpers(document: dict[str, Any]) -> None:
    graph = Graph.from_dict(document)
    assert graph.root.class_name == "Sequential" and not graph.failed
    assert [n.label for n in graph.ops()] == ["linear", "relu", "linear"]
    with pytest.raises(KeyError, match="No node with id 'n404'"):
        graph.node("n404")


# -- the tracer's fast paths agree with the plain ones -------------------------------------------

def _sample(tp: Any) -> Any:
    """A value of the field type ``tp`` (as resolved by typing), for building any record."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(*(_sample(hints[f.name]) for f in dataclasses.fields(tp)))
    if origin is tuple:
        return (_sample(args[0]),) if args else ()
    if origin is typing.Literal:
        return args[0]
    if args:  # Optional[...] and other unions: the first non-None member
        return _sample(next(a for a in args if a is not type(None)))
    return {str: "s", int: 3, bool: True, float: 1.5}[tp]


@pytest.mark.parametrize("cls", [_graph.Argument, _graph.Edge, _graph.Node, _graph.ParameterInfo,
                                 _graph.ModuleCall, _graph.CallTensor])
def test_fast_record_makers_equal_the_dataclass_init(cls: type) -> None:
    maker = getattr(_graph, "make_" + re.sub(r"(?<!^)([A-Z])", r"_\1", cls.__name__).lower())
    fields = [f.name for f in dataclasses.fields(cls)]
    assert list(inspect.signature(maker).parameters) == fields  # every field, in order
    sample = _sample(cls)
    made = maker(*(getattr(sample, name) for name in fields))
    assert type(made) is cls and list(vars(made)) == fields
    assert made == sample and hash(made) == hash(sample) and repr(made) == repr(sample)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, fields[0], getattr(sample, fields[0]))


def test_to_json_shares_converted_records_but_to_dict_does_not() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    graph = vista_core.trace(model, torch.randn(2, 3))
    # The tracer shares one TensorMeta between a producer's output and the edges it feeds.
    assert any(e.tensor is graph.node(e.source).outputs[e.source_output] for e in graph.edges)
    # to_json converts each shared tensor meta once; the text is what to_dict's data gives.
    assert graph.to_json() == json.dumps(graph.to_dict(), separators=(",", ":"), ensure_ascii=True)
    data = graph.to_dict()
    tensors = [e["tensor"] for e in data["edges"]]
    assert len({id(t) for t in tensors}) == len(tensors)  # no aliasing in data handed out
