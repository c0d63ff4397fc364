"""Forward compatibility: a reader of schema 1.1 reads 1.x documents of a newer minor.

Minor versions only add optional fields, so a newer minor's unknown fields are kept (written
back unchanged) and otherwise ignored; the reader's own minor stays strict, and a newer major
is refused naming both versions. The added fields below stand for what a later minor may
bring (energy and latency per node and module call, document totals).
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
import torch

import vista_core
from vista_core import Graph, SchemaError, SchemaVersionError


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
    return vista_core.trace(model, torch.randn(2, 3)).to_dict()


def _newer_minor(document: dict[str, Any], minor: int = 2) -> dict[str, Any]:
    """``document`` as a 1.<minor> writer would write it: new optional fields in the document,
    in nodes, module calls, edges and a nested record (a node's tensor metadata)."""
    newer = copy.deepcopy(document)
    newer["schema_version"] = f"1.{minor}"
    newer["totals"] = {"flops": 48, "bytes": 96}
    for i, node in enumerate(newer["nodes"]):
        node["energy_uj"] = 16 * i
        node["latency_ns"] = 1500
        node["stats"] = {"min": -1.0, "max": 2.0, "nonfinite": 0}
        for tensor in node.get("outputs", []):
            tensor["bytes"] = 32
    newer["nodes"][-1]["first_nonfinite"] = None
    for module in newer["modules"]:
        module["energy_uj"] = 48
        module["peak_bytes"] = 4 * module["num_params"]
    for edge in newer["edges"]:
        edge["bytes"] = 32
    return newer


def test_a_newer_minor_is_read_and_its_unknown_fields_are_kept(document: dict[str, Any]) -> None:
    newer = _newer_minor(document)
    graph = Graph.from_dict(newer)
    assert graph.schema_version == "1.2"
    # Ignored: the records are the ones the 1.0 fields give.
    assert [n.label for n in graph.ops()] == ["linear", "relu", "linear"]
    assert graph.nodes == Graph.from_dict(document).nodes
    # Kept: written back unchanged, through to_dict and to_json.
    assert graph.to_dict() == newer
    assert json.loads(graph.to_json()) == newer
    assert Graph.from_json(graph.to_json()).to_dict() == newer


def test_kept_fields_are_copies(document: dict[str, Any]) -> None:
    newer = _newer_minor(document)
    graph = Graph.from_dict(newer)
    newer["nodes"][0]["stats"]["min"] = 99.0
    out = graph.to_dict()
    assert out["nodes"][0]["stats"]["min"] == -1.0
    out["totals"]["flops"] = 0
    assert graph.to_dict()["totals"]["flops"] == 48


def test_the_readers_own_minor_stays_strict(document: dict[str, Any]) -> None:
    own = _newer_minor(document, minor=1)
    with pytest.raises(SchemaError, match=r"\$ has unknown field\(s\) \['totals'\] for Graph"):
        Graph.from_dict(own)
    del own["totals"]
    with pytest.raises(SchemaError, match=r"\$\.modules\[0\] has unknown field\(s\) \['energy_uj', 'peak_bytes'\]"):
        Graph.from_dict(own)


def test_known_fields_of_a_newer_minor_are_still_checked(document: dict[str, Any]) -> None:
    newer = _newer_minor(document)
    newer["nodes"][0]["kind"] = "tensor"
    with pytest.raises(SchemaError, match=r"\$\.nodes\[0\]\.kind must be one of"):
        Graph.from_dict(newer)
    newer = _newer_minor(document)
    del newer["edges"][0]["target"]
    with pytest.raises(SchemaError, match=r"\$\.edges\[0\] is missing the required field 'target'"):
        Graph.from_dict(newer)


def test_a_newer_major_is_refused_naming_both_versions(document: dict[str, Any]) -> None:
    newer = _newer_minor(document)
    newer["schema_version"] = "2.0"
    with pytest.raises(SchemaVersionError, match=r"'2\.0'.*'1\.1'"):
        Graph.from_dict(newer)
    with pytest.raises(SchemaVersionError, match=r"'2\.0'.*'1\.1'"):
        vista_core.validate_document(newer)


def test_json_schema_validation_accepts_a_newer_minor(document: dict[str, Any]) -> None:
    newer = _newer_minor(document)
    vista_core.validate_document(newer)
    vista_core.validate_document(json.dumps(newer))
    vista_core.validate_document(Graph.from_dict(newer))


def test_json_schema_validation_stays_strict_on_its_own_minor(document: dict[str, Any]) -> None:
    own = _newer_minor(document, minor=1)
    with pytest.raises(SchemaError, match=r"Additional properties are not allowed"):
        vista_core.validate_document(own)


def test_json_schema_validation_of_a_newer_minor_still_checks_known_fields(document: dict[str, Any]) -> None:
    newer = _newer_minor(document)
    newer["edges"][0]["source"] = "node-zero"
    with pytest.raises(SchemaError, match=r"at \$\.edges\[0\]\.source"):
        vista_core.validate_document(newer)


def test_the_shipped_schema_is_strict_and_the_lenient_form_is_derived_from_it() -> None:
    strict = vista_core.schema()
    assert strict["additionalProperties"] is False
    assert strict["$defs"]["node"]["additionalProperties"] is False
    # schema() hands out a copy: changing it changes nothing for the next caller.
    strict["$defs"]["node"]["additionalProperties"] = True
    assert vista_core.schema()["$defs"]["node"]["additionalProperties"] is False


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_nan_or_infinity_in_a_kept_field_is_refused_naming_it(document: dict[str, Any], value: float) -> None:
    # Kept fields are written back as JSON, which has no NaN: refused when read, not when written.
    newer = _newer_minor(document)
    newer["nodes"][2]["stats"]["max"] = value
    with pytest.raises(SchemaError, match=rf"has {value!r} at \$\.nodes\[2\]\.stats\.max: JSON has no NaN"):
        Graph.from_dict(newer)
    text = json.dumps(newer)  # Python's json writes NaN / Infinity, which is no JSON
    with pytest.raises(SchemaError, match=r"at \$\.nodes\[2\]\.stats\.max"):
        Graph.from_json(text)


def test_nan_in_a_known_field_is_refused_naming_it(document: dict[str, Any]) -> None:
    broken = copy.deepcopy(document)
    broken["edges"][0]["tensor"]["shape"][0] = math.nan
    with pytest.raises(SchemaError, match=r"\$\.edges\[0\]\.tensor\.shape\[0\]"):
        Graph.from_dict(broken)
    with pytest.raises(SchemaError, match=r"\$\.edges\[0\]\.tensor\.shape\[0\]"):
        Graph.from_json(json.dumps(broken))
    with pytest.raises(SchemaError, match=r"\$\.edges\[0\]\.tensor\.shape\[0\]"):
        vista_core.validate_document(broken)
