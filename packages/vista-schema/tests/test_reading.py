"""The one version check, reading a document as a renderer needs it, and NaN/Inf named by field."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

import vista_schema
from vista_schema import SchemaError, SchemaVersionError, check_schema_version, read_document

MODULE = {"id": "m0", "parent": None, "path": "", "name": "", "class_name": "M", "class_qualname": "t.M",
          "call_index": 0, "num_params": 0, "num_params_own": 0, "signature": "s"}
DOCUMENT: dict[str, Any] = {
    "schema_version": "1.0",
    "producer": {"name": "test", "version": "0", "torch": "0", "python": "3"},
    "modules": [MODULE],
    "nodes": [{"id": "n0", "kind": "input", "name": "x", "label": "x", "module": "m0",
               "outputs": [{"shape": [2, 3], "dtype": "float32", "device": "cpu"}]},
              {"id": "n1", "kind": "output", "name": "y", "label": "y", "module": "m0"}],
    "edges": [{"source": "n0", "source_output": 0, "target": "n1", "target_input": 0,
               "tensor": {"shape": [2, 3], "dtype": "float32", "device": "cpu"}}],
}


def test_own_and_older_minors_are_read_strictly_a_newer_minor_leniently() -> None:
    assert check_schema_version(vista_schema.SCHEMA_VERSION) is False
    assert check_schema_version("1.0") is False
    assert check_schema_version("1.1") is False
    assert check_schema_version("1.2") is True
    assert check_schema_version("1.10") is True


@pytest.mark.parametrize("version", ["2.0", "0.9", "10.1"])
def test_another_major_is_refused_naming_both_versions(version: str) -> None:
    with pytest.raises(SchemaVersionError) as info:
        check_schema_version(version)
    assert f"schema version {version!r}" in str(info.value)
    assert f"reads schema version {vista_schema.SCHEMA_VERSION!r}" in str(info.value)


@pytest.mark.parametrize("version", [None, 1, "1", "1.0.0", "v1.0", "a.b", "١.٠"])
def test_a_malformed_version_is_refused(version: object) -> None:
    with pytest.raises(SchemaError, match=r"no valid 'schema_version' \(expected a 'major\.minor' string"):
        check_schema_version(version)


def test_read_document_takes_a_dict_text_bytes_or_a_to_dict_object() -> None:
    text = json.dumps(DOCUMENT)

    class GraphLike:
        def to_dict(self) -> dict[str, Any]:
            return DOCUMENT

    assert read_document(DOCUMENT) is DOCUMENT
    for given in (text, text.encode("utf-8"), bytearray(text.encode("utf-8")), GraphLike()):
        assert read_document(given) == DOCUMENT


@pytest.mark.parametrize(("mutate", "match"), [
    (lambda d: d.pop("nodes"), r"'nodes' must be a list, got None"),
    (lambda d: d.update(edges={}), r"'edges' must be a list, got \{\}"),
    (lambda d: d.update(modules=[]), r"'modules' must start with the root module call"),
    (lambda d: d["modules"][0].update(parent="m1"), r"'modules' must start with the root module call"),
])
def test_read_document_checks_the_top_level_shape(mutate: Any, match: str) -> None:
    broken = copy.deepcopy(DOCUMENT)
    mutate(broken)
    with pytest.raises(SchemaError, match=match):
        read_document(broken)


@pytest.mark.parametrize("value", [None, 42, 3.5, ["a"], object()])
def test_values_that_are_no_document_raise_type_error(value: object) -> None:
    with pytest.raises(TypeError, match=r"Invalid 'document' argument: .* \(type \w+\); pass .*to_dict"):
        read_document(value)


@pytest.mark.parametrize(("text", "match"), [
    ("{nope", r"not valid JSON"),
    (b"{\"a\": \"\xff\"}", r"not valid JSON: its bytes are not UTF-8"),
    ("[1]", r"must be a JSON object, got list"),
])
def test_unreadable_text(text: str | bytes, match: str) -> None:
    with pytest.raises(SchemaError, match=match):
        read_document(text)


@pytest.mark.parametrize(("literal", "shown"), [("NaN", "nan"), ("Infinity", "inf"), ("-Infinity", "-inf")])
def test_nan_and_infinity_in_json_text_are_refused_naming_the_field(literal: str, shown: str) -> None:
    text = json.dumps(DOCUMENT).replace('"dtype": "float32", "device": "cpu"}]}',
                                        f'"dtype": "float32", "device": "cpu"}}], "stats": {{"min": {literal}}}}}', 1)
    assert literal in text
    with pytest.raises(SchemaError, match=rf"has {shown} at \$\.nodes\[0\]\.stats\.min: JSON has no NaN"):
        read_document(text)
    with pytest.raises(SchemaError, match=r"\$\.nodes\[0\]\.stats\.min"):
        vista_schema.parse_json(text)


def test_check_finite_names_the_place_in_dicts_lists_and_odd_keys() -> None:
    vista_schema.check_finite(DOCUMENT)
    with pytest.raises(SchemaError, match=r"has nan at \$\.a\[1\]\['odd key'\]"):
        vista_schema.check_finite({"a": [1.0, {"odd key": math.nan}]})
    with pytest.raises(SchemaError, match=r"has inf at \$: "):
        vista_schema.check_finite(math.inf)
    deep: Any = math.nan
    for _ in range(5000):  # deeper than the recursion limit: walked with a loop
        deep = [deep]
    with pytest.raises(SchemaError, match=r"has nan at \$(\[0\]){5000}:"):
        vista_schema.check_finite(deep)


def test_validate_document_refuses_nan_in_a_field_it_does_not_know() -> None:
    newer = copy.deepcopy(DOCUMENT)
    newer["schema_version"] = "1.2"
    newer["nodes"][1]["time_us"] = math.inf
    with pytest.raises(SchemaError, match=r"has inf at \$\.nodes\[1\]\.time_us"):
        vista_schema.validate_document(newer)
    newer["nodes"][1]["time_us"] = 1.5
    vista_schema.validate_document(newer)
    vista_schema.validate_document(DOCUMENT)


def test_the_shipped_schema() -> None:
    shipped = vista_schema.schema()
    assert shipped["title"].startswith("Vista graph document")
    assert shipped["properties"]["schema_version"]["pattern"] == r"^1\.[0-9]+$"
    with pytest.raises(ValueError, match="No JSON Schema for schema major version 3"):
        vista_schema.schema(3)
    with pytest.raises(TypeError, match=r"Invalid 'major' argument: '1'"):
        vista_schema.schema("1")  # type: ignore[arg-type]
