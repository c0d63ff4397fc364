"""What render_html accepts as a document, and the errors for everything else."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import torch

import vista_core
from vista_render_html import DocumentError, SchemaVersionError, read_html, render_html, save_html
from vista_render_html._document import read_document


def test_graph_dict_and_json_text_give_the_same_page(mlp_graph: vista_core.Graph) -> None:
    from_graph = render_html(mlp_graph)
    assert render_html(mlp_graph.to_dict()) == from_graph
    assert render_html(mlp_graph.to_json()) == from_graph
    assert render_html(mlp_graph.to_json().encode("utf-8")) == from_graph


def test_read_document_returns_the_document_unchanged(mlp_doc: dict[str, Any]) -> None:
    before = copy.deepcopy(mlp_doc)
    assert read_document(mlp_doc) == before
    assert mlp_doc == before


def test_a_model_is_refused_with_a_pointer_to_trace() -> None:
    with pytest.raises(TypeError, match=r"Linear.*vista_core\.trace\(model, inputs\)"):
        render_html(torch.nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"vista_core\.trace"):
        save_html(torch.nn.Sequential(), "never-written.html")
    assert not Path("never-written.html").exists()


@pytest.mark.parametrize("value", [None, 42, 3.5, ["a"], object(), Path("graph.json")])
def test_values_that_are_no_document_raise_type_error(value: object) -> None:
    with pytest.raises(TypeError, match=r"Invalid 'document' argument: .* \(type \w+\); pass .*to_dict"):
        render_html(value)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ("{not json", r"not valid JSON"),
        ("[1, 2]", r"JSON object, got list"),
        ("\"text\"", r"JSON object, got str"),
        (b"\xff\xfe", r"not valid JSON"),
    ],
)
def test_unreadable_json_raises_document_error(text: str | bytes, pattern: str) -> None:
    with pytest.raises(DocumentError, match=pattern):
        render_html(text)


def test_to_dict_returning_no_dict_is_a_document_error() -> None:
    class Odd:
        def to_dict(self) -> list[int]:
            return [1]

    with pytest.raises(DocumentError, match=r"JSON object, got list"):
        render_html(Odd())


@pytest.mark.parametrize("version", ["2.0", "0.9", "10.1"])
def test_other_major_version_names_both_versions(mlp_doc: dict[str, Any], version: str) -> None:
    doc = {**mlp_doc, "schema_version": version}
    with pytest.raises(SchemaVersionError) as info:
        render_html(doc)
    message = str(info.value)
    assert repr(version) in message
    assert repr(vista_core.SCHEMA_VERSION) in message
    assert info.value.document_version == version
    assert info.value.supported_version == vista_core.SCHEMA_VERSION
    assert isinstance(info.value, ValueError)


def test_newer_minor_version_is_accepted(mlp_doc: dict[str, Any]) -> None:
    assert render_html({**mlp_doc, "schema_version": "1.7"}).startswith("<!doctype html>")


@pytest.mark.parametrize("version", [None, 1, "1", "1.0.0", "v1.0", "a.b"])
def test_missing_or_malformed_version_is_a_document_error(mlp_doc: dict[str, Any], version: object) -> None:
    doc = {**mlp_doc, "schema_version": version}
    if version is None:
        del doc["schema_version"]
    with pytest.raises(DocumentError, match=r"schema_version.*'major\.minor'"):
        render_html(doc)


@pytest.mark.parametrize("key", ["modules", "nodes", "edges"])
def test_missing_lists_are_document_errors(mlp_doc: dict[str, Any], key: str) -> None:
    doc = {k: v for k, v in mlp_doc.items() if k != key}
    with pytest.raises(DocumentError, match=rf"'{key}' must be a list, got None"):
        render_html(doc)


def test_modules_must_start_with_the_root(mlp_doc: dict[str, Any]) -> None:
    with pytest.raises(DocumentError, match=r"root module call"):
        render_html({**mlp_doc, "modules": mlp_doc["modules"][1:]})
    with pytest.raises(DocumentError, match=r"root module call"):
        render_html({**mlp_doc, "modules": []})


def test_the_embedded_document_round_trips_through_vista_core(mlp_graph: vista_core.Graph) -> None:
    document = read_html(render_html(mlp_graph))
    assert vista_core.Graph.from_dict(document) == mlp_graph
    vista_core.validate_document(document)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_nan_or_infinity_is_a_document_error_naming_the_field(mlp_doc: dict[str, Any], value: float) -> None:
    # A newer minor's field (ignored by this renderer) still has to be JSON.
    doc = copy.deepcopy(mlp_doc)
    doc["schema_version"] = "1.2"
    doc["nodes"][1]["time_us"] = value
    with pytest.raises(DocumentError, match=rf"has {value!r} at \$\.nodes\[1\]\.time_us: JSON has no NaN"):
        render_html(doc)
    with pytest.raises(DocumentError, match=r"at \$\.nodes\[1\]\.time_us"):
        render_html(json.dumps(doc))


def test_a_newer_minor_with_fields_this_renderer_does_not_know_is_rendered(mlp_doc: dict[str, Any]) -> None:
    doc = copy.deepcopy(mlp_doc)
    doc["schema_version"] = "1.2"
    doc["totals"] = {"flops": 10}
    for node in doc["nodes"]:
        node["flops"] = 1
    assert render_html(doc).startswith("<!doctype html>")
