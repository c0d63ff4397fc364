"""Reading and validating diff documents without torch: the version check, shape and ids."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

import vista_schema
from vista_schema import (
    DiffVersionError,
    SchemaError,
    SchemaVersionError,
    diff_schema,
    is_diff_document,
    read_diff_document,
    validate_diff_document,
)

EDGE = "n0:0->n1:0"
DOCUMENT: dict[str, Any] = {
    "schema_version": "1.0",
    "producer": {"name": "test", "version": "0", "torch": "0", "python": "3"},
    "modules": [{"id": "m0", "parent": None, "path": "", "name": "", "class_name": "M", "class_qualname": "t.M",
                 "call_index": 0, "num_params": 0, "num_params_own": 0, "signature": "s"}],
    "nodes": [{"id": "n0", "kind": "input", "name": "x", "label": "x", "module": "m0",
               "outputs": [{"shape": [2, 3], "dtype": "float32", "device": "cpu"}]},
              {"id": "n1", "kind": "output", "name": "y", "label": "y", "module": "m0"}],
    "edges": [{"source": "n0", "source_output": 0, "target": "n1", "target_input": 0,
               "tensor": {"shape": [2, 3], "dtype": "float32", "device": "cpu"}}],
}


def _document() -> dict[str, Any]:
    """b adds nothing but changes the input's shape: the union holds b's values."""
    b = copy.deepcopy(DOCUMENT)
    b["nodes"][0]["outputs"][0]["shape"] = [2, 4]
    b["edges"][0]["tensor"]["shape"] = [2, 4]
    return {
        "diff_version": vista_schema.DIFF_VERSION,
        "a": copy.deepcopy(DOCUMENT), "b": b, "union": copy.deepcopy(b),
        "equal": False,
        "changes": [
            {"element": "node", "id": "n0", "a": "n0", "b": "n0", "status": "changed",
             "fields": [{"field": "outputs[0].shape", "a": [2, 3], "b": [2, 4]}]},
            {"element": "edge", "id": EDGE, "a": EDGE, "b": EDGE, "status": "changed",
             "fields": [{"field": "tensor.shape", "a": [2, 3], "b": [2, 4]}]},
        ],
        "matches": {"modules": [["m0", "m0", "m0"]], "nodes": [["n0", "n0", "n0"], ["n1", "n1", "n1"]]},
    }


def test_a_diff_document_is_read_and_validated_as_dict_and_as_text() -> None:
    data = _document()
    assert read_diff_document(data) is data
    assert read_diff_document(json.dumps(data)) == data
    validate_diff_document(data)
    validate_diff_document(json.dumps(data))
    assert is_diff_document(data) and not is_diff_document(DOCUMENT)


def test_the_diff_schema_refers_to_the_graph_schema_and_is_a_copy() -> None:
    schema = diff_schema()
    assert schema["properties"]["union"]["$ref"] == "graph.schema.json"
    schema["title"] = "changed"
    assert diff_schema()["title"] != "changed"
    with pytest.raises(TypeError, match="major"):
        diff_schema("1")  # type: ignore[arg-type]


@pytest.mark.parametrize("version", ["2.0", "0.1"])
def test_another_diff_major_is_refused_naming_both_versions(version: str) -> None:
    data = _document() | {"diff_version": version}
    with pytest.raises(DiffVersionError) as info:
        read_diff_document(data)
    assert isinstance(info.value, SchemaVersionError)
    assert repr(version) in str(info.value) and repr(vista_schema.DIFF_VERSION) in str(info.value)
    assert "Diff document" in str(info.value)


@pytest.mark.parametrize("version", [None, 1, "1", "one.two"])
def test_a_missing_or_malformed_diff_version_is_named(version: object) -> None:
    with pytest.raises(SchemaError, match="'diff_version'"):
        read_diff_document(_document() | {"diff_version": version})


def test_an_embedded_graph_of_another_schema_major_names_both_versions() -> None:
    data = _document()
    data["union"]["schema_version"] = "2.0"
    with pytest.raises(SchemaVersionError, match=r"'2\.0'"):
        read_diff_document(data)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("union"), "'union' must be a graph document"),
    (lambda d: d.update(changes={}), "'changes' must be a list"),
    (lambda d: d["a"].update(nodes={}), "Diff document's 'a': .*'nodes' must be a list"),
])
def test_read_names_what_is_missing(change: Any, message: str) -> None:
    data = _document()
    change(data)
    with pytest.raises(SchemaError, match=message):
        read_diff_document(data)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["changes"][0].update(status="moved"), r"\$.changes\[0\].status"),
    (lambda d: d["changes"][0].update(id="n9"), r"changes\[0\].id refers to unknown node 'n9'"),
    (lambda d: d["changes"][1].update(b="n0:0->n1:1"), r"changes\[1\].b refers to unknown edge"),
    (lambda d: d["changes"][0].update(status="added"), "an added element has no a"),
    (lambda d: d["matches"]["nodes"].append(["n0", "n7", "n0"]), r"matches.nodes\[2\] refers to unknown node 'n7'"),
    (lambda d: d["matches"]["modules"].append(["m0", "m0"]), r"\$.matches.modules\[1\]"),
    (lambda d: d["union"]["nodes"][0].update(kind="tensor"), r"Diff document's 'union': .*\$.nodes\[0\].kind"),
    (lambda d: d.update(extra=1), "Additional properties"),
])
def test_validation_names_the_first_problem(change: Any, message: str) -> None:
    data = _document()
    change(data)
    with pytest.raises(SchemaError, match=message):
        validate_diff_document(data)


def test_a_newer_diff_minor_with_fields_unknown_here_validates() -> None:
    data = _document() | {"diff_version": "1.9", "future": True}
    data["changes"][0]["weight"] = 3
    validate_diff_document(data)


def test_reading_a_diff_imports_nothing_heavy() -> None:
    code = (
        "import json, sys, vista_schema\n"
        f"vista_schema.read_diff_document({json.dumps(json.dumps(_document()))})\n"
        "print(','.join(sorted(m for m in ('torch', 'numpy', 'jinja2', 'jsonschema', 'vista_core')"
        " if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
