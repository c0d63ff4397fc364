"""Bad input to each public function of vista-core gives an error that names the argument,
shows the bad value, and says what to pass instead; never a crash from deep inside.

Functions: ``trace``, ``capture``, ``Graph.from_json``, ``Graph.from_dict``, ``Graph.node``,
``validate_document`` and ``schema``. Each case lists the error class and pieces of text the
message must hold: the argument's name, the bad value (its repr, cut when long) and what is
expected.
"""

from __future__ import annotations

import copy
import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch import nn

import vista_core
from vista_core import SchemaError, SchemaVersionError, TraceInputError

pytestmark = pytest.mark.usefixtures("torch_clean")


class BrokenRepr:
    """A value whose repr raises: error messages must not call it blindly."""

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ is broken")


X = torch.randn(2, 3)
MODEL = nn.Linear(3, 3)
with warnings.catch_warnings():  # torch 2.13 deprecates TorchScript; users still pass it
    warnings.simplefilter("ignore", DeprecationWarning)
    SCRIPTED = torch.jit.script(MODEL)
    JIT_TRACED = torch.jit.trace(MODEL, X)  # type: ignore[no-untyped-call]  # untyped in torch
HUGE = "h" * 1_000_000

# (id, model, inputs, kwargs, pieces of the message)
TRACE_CASES: list[Any] = [
    pytest.param(5, X, None, ["'model'", "5", "int", "nn.Module"], id="model-int"),
    pytest.param("model", X, None, ["'model'", "'model'", "str", "nn.Module"], id="model-str"),
    pytest.param(None, X, None, ["'model'", "None", "nn.Module"], id="model-None"),
    pytest.param(SCRIPTED, X, None, ["TorchScript", "RecursiveScriptModule", "nn.Module"],
                 id="model-torchscript"),
    pytest.param(JIT_TRACED, X, None, ["TorchScript", "nn.Module"], id="model-jit-traced"),
    pytest.param(nn.Linear, X, None, ["'model'", "Linear", "instance"], id="model-class-not-instance"),
    pytest.param(BrokenRepr(), X, None, ["'model'", "BrokenRepr", "nn.Module"], id="model-broken-repr"),
    pytest.param(MODEL, 3.0, None, ["'inputs'", "3.0", "float", "tuple"], id="inputs-float"),
    pytest.param(MODEL, None, None, ["'inputs'", "None", "tuple"], id="inputs-None"),
    pytest.param(MODEL, {X}, None, ["'inputs'", "set", "tuple"], id="inputs-set"),
    pytest.param(MODEL, iter([X]), None, ["'inputs'", "list_iterator", "tuple"], id="inputs-iterator"),
    pytest.param(MODEL, BrokenRepr(), None, ["'inputs'", "BrokenRepr", "tuple"], id="inputs-broken-repr"),
    pytest.param(MODEL, HUGE, None, ["'inputs'", "'hhhh", "str", "tuple"], id="inputs-huge-str"),
    pytest.param(MODEL, {1: X}, None, ["'inputs'", "1", "string"], id="inputs-int-key"),
    pytest.param(MODEL, [1.0, 2.0, 3.0], None, ["'inputs'", "[1.0, 2.0, 3.0]", "list of 3 plain numbers",
                                                 "torch.tensor([1.0, 2.0, 3.0])", "(1.0, 2.0, 3.0)"],
                 id="inputs-list-of-numbers"),
    pytest.param(MODEL, [[1, 2, 3], [4, 5, 6]], None, ["'inputs'", "[[1, 2, 3], [4, 5, 6]]", "nested list",
                                                      "torch.tensor([[1, 2, 3], [4, 5, 6]])"],
                 id="inputs-nested-list-of-numbers"),
    pytest.param(MODEL, [True], None, ["'inputs'", "[True]", "list of 1 plain number", "torch.tensor([True])"],
                 id="inputs-list-of-one-bool"),
    pytest.param(MODEL, list(range(1000)), None, ["'inputs'", "[0, 1, 2", "1000 plain numbers", "torch.tensor("],
                 id="inputs-long-list-of-numbers"),
    pytest.param(MODEL, (X,), [1], ["'kwargs'", "[1]", "list", "dict"], id="kwargs-list"),
    pytest.param(MODEL, (X,), "input", ["'kwargs'", "'input'", "dict"], id="kwargs-str"),
    pytest.param(MODEL, (), {1: X}, ["'kwargs'", "1", "string"], id="kwargs-int-key"),
    pytest.param(MODEL, {"input": X}, {"input": X}, ["'input'", "'inputs'", "'kwargs'"], id="kwargs-duplicate"),
]


@pytest.mark.parametrize("function", [vista_core.trace, vista_core.capture], ids=["trace", "capture"])
@pytest.mark.parametrize(("model", "inputs", "kwargs", "pieces"), TRACE_CASES)
def test_trace_and_capture_reject_bad_arguments(function: Callable[..., Any], model: Any, inputs: Any,
                                                kwargs: Any, pieces: list[str]) -> None:
    with pytest.raises(TraceInputError) as info:
        function(model, inputs, kwargs=kwargs)
    message = str(info.value)
    for piece in pieces:
        assert piece in message, f"{piece!r} missing from the message: {message[:300]!r}"
    assert len(message) < 1000, "the message must show the bad value in short"
    assert isinstance(info.value, TypeError)  # TraceInputError is also a TypeError


def test_positional_numbers_in_a_tuple_or_beside_a_tensor_are_accepted() -> None:
    """Not bad input: a tuple spells out positional arguments, plain numbers included, and a
    list that holds a tensor is positional arguments too; only an all-number list is refused."""
    def scale(x: torch.Tensor, factor: float, offset: float = 0.0) -> torch.Tensor:
        return x * factor + offset

    assert [n.label for n in vista_core.trace(lambda a, b: torch.full((2,), a) * b, (1.0, 2.0)).ops()] == [
        "full", "mul"]
    assert torch.equal(vista_core.capture(scale, [X, 2.0, 1.0]).output, X * 2.0 + 1.0)
    assert vista_core.capture(scale, [X, 2.0]).exception is None
    assert vista_core.capture(lambda: torch.ones(1), []).exception is None  # no arguments


def test_a_function_model_is_accepted() -> None:
    """Not bad input: any callable taking the inputs is a model (documented in capture)."""
    graph = vista_core.trace(torch.tanh, X)
    assert [n.label for n in graph.ops()] == ["tanh"]


# -- reading documents ------------------------------------------------------------------------

def _document() -> dict[str, Any]:
    """input, weight, bias, linear (node 3, with arguments), relu, output."""
    document = vista_core.trace(nn.Sequential(nn.Linear(3, 3), nn.ReLU()), X).to_dict()
    assert document["nodes"][3]["arguments"]
    return document


@pytest.mark.parametrize(("text", "pieces"), [
    pytest.param(5, ["from_json()", "int", "5", "str or bytes", "from_dict"], id="int"),
    pytest.param(None, ["from_json()", "None", "str or bytes"], id="None"),
    pytest.param({"schema_version": "1.0"}, ["from_json()", "dict", "from_dict"], id="dict"),
    pytest.param("{", ["not valid JSON", "line 1 column 2"], id="broken-json"),
    pytest.param("[]", ["JSON object", "list"], id="array"),
    pytest.param("{}", ["schema_version", "'1.1'", "None"], id="no-version"),
    pytest.param(b"\xff\xfe{", ["not valid JSON"], id="bytes-not-utf8"),
    pytest.param('{"schema_version": 1.0}', ["schema_version", "1.0", "major.minor"], id="version-number"),
    pytest.param("\ud800", ["not valid JSON"], id="lone-surrogate"),
])
def test_from_json_rejects_bad_text(text: Any, pieces: list[str]) -> None:
    with pytest.raises(SchemaError) as info:
        vista_core.Graph.from_json(text)
    for piece in pieces:
        assert piece in str(info.value)


def test_unknown_major_version_names_both_versions() -> None:
    document = _document()
    document["schema_version"] = "2.3"
    for read in (vista_core.Graph.from_dict, vista_core.validate_document,
                 lambda d: vista_core.Graph.from_json(json.dumps(d))):
        with pytest.raises(SchemaVersionError) as info:
            read(document)
        assert "'2.3'" in str(info.value)
        assert f"{vista_core.SCHEMA_VERSION!r}" in str(info.value)
        assert (info.value.document_version, info.value.supported_version) == ("2.3", vista_core.SCHEMA_VERSION)


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        target: Any = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


def _add(path: list[Any], key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return _set([*path, key], value)


# Corruptions that the JSON Schema rejects; the message must name the place.
CORRUPTIONS: list[Any] = [
    pytest.param(_set(["nodes", 0, "kind"], "weird"), "$.nodes[0].kind", id="unknown-kind"),
    pytest.param(_set(["nodes", 0, "outputs"], {"a": 1}), "$.nodes[0].outputs", id="outputs-object"),
    pytest.param(_set(["nodes", 0, "outputs", 0, "shape"], "ab"), "$.nodes[0].outputs[0].shape",
                 id="shape-string"),
    pytest.param(_set(["nodes", 0, "outputs", 0, "shape"], [1.5]), "$.nodes[0].outputs[0].shape[0]",
                 id="shape-float"),
    pytest.param(_set(["nodes", 0, "outputs", 0, "shape"], [True]), "$.nodes[0].outputs[0].shape[0]",
                 id="shape-bool"),
    pytest.param(_set(["edges", 0, "tensor"], None), "$.edges[0].tensor", id="edge-tensor-null"),
    pytest.param(_set(["modules", 0, "parent"], 5), "$.modules[0].parent", id="parent-int"),
    pytest.param(_add([], "extra", 1), "extra", id="unknown-top-level-field"),
    pytest.param(_add(["nodes", 0], "colour", "red"), "colour", id="unknown-node-field"),
    pytest.param(_set(["producer"], "vista"), "$.producer", id="producer-string"),
    pytest.param(_set(["nodes", 3, "arguments", 0, "value"], 3), "$.nodes[3].arguments[0].value",
                 id="argument-value-int"),
    # The JSON Schema rejects these too; Graph.from_dict ("checking every field's type") must.
    pytest.param(_set(["nodes", 0, "outputs", 0, "shape"], [-1]), "$.nodes[0].outputs[0].shape[0]",
                 id="shape-negative"),
    pytest.param(_set(["modules", 0, "num_params"], -1), "$.modules[0].num_params", id="num_params-negative"),
    pytest.param(_set(["modules", 0, "call_index"], -2), "$.modules[0].call_index", id="call_index-negative"),
    pytest.param(_set(["nodes", 0, "error"], None), "$.nodes[0].error", id="node-error-null"),
    pytest.param(_set(["schema_version"], "1.x"), "schema_version", id="version-1.x"),
    pytest.param(_set(["repeated_blocks"], [{"parent": "m0", "modules": ["m1"], "signature": "s"}]),
                 "$.repeated_blocks[0].modules", id="repeated-block-of-one"),
]


@pytest.mark.parametrize(("corrupt", "where"), CORRUPTIONS)
def test_corrupt_documents_are_rejected_by_both_readers(corrupt: Callable[[dict[str, Any]], None],
                                                        where: str) -> None:
    document = _document()
    corrupt(document)
    with pytest.raises(SchemaError) as validated:
        vista_core.validate_document(document)
    assert where.split(".")[-1].split("[")[0] in str(validated.value)
    with pytest.raises(SchemaError) as read:
        vista_core.Graph.from_dict(copy.deepcopy(document))
    assert where in str(read.value), f"{where!r} not named in {str(read.value)!r}"


@pytest.mark.parametrize(("corrupt", "message"), [
    pytest.param(_set(["edges", 0, "source"], "n99"), "$.edges[0] refers to unknown node 'n99'", id="edge-source"),
    pytest.param(_set(["nodes", 0, "module"], "m42"), "$.nodes[0].module refers to unknown module 'm42'",
                 id="node-module"),
    pytest.param(_set(["modules"], []), "root module call", id="no-modules"),
    pytest.param(_set(["edges", 0, "source_output"], 7), "source_output 7 is out of range", id="port-range"),
])
def test_broken_references_are_rejected_by_from_dict(corrupt: Callable[[dict[str, Any]], None],
                                                     message: str) -> None:
    document = _document()
    corrupt(document)
    with pytest.raises(SchemaError, match=None) as info:
        vista_core.Graph.from_dict(document)
    assert message in str(info.value)


@pytest.mark.parametrize("value", [None, [], 5, "text", (1, 2)], ids=["None", "list", "int", "str", "tuple"])
def test_from_dict_rejects_non_mappings(value: Any) -> None:
    with pytest.raises(SchemaError) as info:
        vista_core.Graph.from_dict(value)
    assert "JSON object" in str(info.value)
    assert type(value).__name__ in str(info.value)
    assert repr(value)[:20] in str(info.value)


def test_huge_bad_value_is_shown_in_short() -> None:
    document = _document()
    document["nodes"][0]["kind"] = HUGE
    with pytest.raises(SchemaError) as info:
        vista_core.Graph.from_dict(document)
    assert "$.nodes[0].kind" in str(info.value)
    assert "'hhhh" in str(info.value)
    assert len(str(info.value)) < 1000


# -- validate_document, schema, Graph.node ------------------------------------------------

@pytest.mark.parametrize(("document", "error", "pieces"), [
    pytest.param(5, TypeError, ["'document'", "5", "int", "Graph", "to_dict()", "JSON text"], id="int"),
    pytest.param(None, TypeError, ["'document'", "None", "Graph"], id="None"),
    pytest.param([1], TypeError, ["'document'", "[1]", "list"], id="list"),
    pytest.param("{", SchemaError, ["not valid JSON"], id="broken-json"),
    pytest.param(b"\xff", SchemaError, ["not valid JSON"], id="bytes-not-utf8"),
    pytest.param("[]", SchemaError, ["JSON object", "list"], id="array"),
    pytest.param({}, SchemaError, ["schema_version", "None"], id="empty"),
])
def test_validate_document_rejects_bad_arguments(document: Any, error: type[Exception], pieces: list[str]) -> None:
    with pytest.raises(error) as info:
        vista_core.validate_document(document)
    for piece in pieces:
        assert piece in str(info.value), f"{piece!r} missing from {str(info.value)!r}"


def test_validate_document_takes_what_from_json_takes() -> None:
    text = vista_core.trace(MODEL, X).to_json()
    forms: list[Any] = [text, text.encode("utf-8"), bytearray(text.encode("utf-8"))]
    for form in forms:
        vista_core.Graph.from_json(form)
        vista_core.validate_document(form)


@pytest.mark.parametrize(("major", "error", "pieces"), [
    pytest.param("1", TypeError, ["'major'", "'1'", "int"], id="str"),
    pytest.param(True, TypeError, ["'major'", "True", "int"], id="bool"),
    pytest.param(1.0, TypeError, ["'major'", "1.0", "int"], id="float"),
    pytest.param(None, TypeError, ["'major'", "None", "int"], id="None"),
    pytest.param(2, ValueError, ["2", "version 1"], id="unknown-major"),
    pytest.param(-1, ValueError, ["-1", "version 1"], id="negative"),
])
def test_schema_rejects_bad_major(major: Any, error: type[Exception], pieces: list[str]) -> None:
    with pytest.raises(error) as info:
        vista_core.schema(major)
    for piece in pieces:
        assert piece in str(info.value)


@pytest.mark.parametrize("node_id", ["n999", 5, None, ""])
def test_graph_node_names_the_missing_id(node_id: Any) -> None:
    graph = vista_core.trace(MODEL, X)
    with pytest.raises(KeyError) as info:
        graph.node(node_id)
    assert repr(node_id) in str(info.value)
