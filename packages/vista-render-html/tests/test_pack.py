"""The page's compact form of a document (``_pack``): lossless, equal values written once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vista_render_html._pack import pack_document, unpack_document

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=40,
)


def _same(a: Any, b: Any) -> bool:
    """Equal with JSON's types kept apart (True is not 1, 1.0 is not 1, -0.0 is not 0.0)."""
    return json.dumps(a) == json.dumps(b)


@given(_JSON)
def test_any_json_value_round_trips_through_its_json_text(value: Any) -> None:
    assert _same(unpack_document(json.loads(json.dumps(pack_document(value)))), value)


@pytest.mark.parametrize("value", [[True, 1, 1.0, 0.0, -0.0, None, "1", False, 0], {"a": [1, True], "b": [True, 1]}])
def test_values_that_compare_equal_in_python_stay_apart(value: Any) -> None:
    assert _same(unpack_document(pack_document(value)), value)


def test_repeated_objects_and_strings_are_written_once() -> None:
    tensor = {"shape": [1, 16, 64], "dtype": "float32", "device": "meta"}
    nodes = [{"id": f"n{i}", "outputs": [dict(tensor)], "file": "/a/long/path/modeling_llama.py"} for i in range(1000)]
    scalars, shapes, boxes, _ = pack_document({"nodes": nodes})
    assert scalars.count("/a/long/path/modeling_llama.py") == 1 and scalars.count("float32") == 1
    assert len(shapes) == 3  # the root's keys, a node's keys, a tensor's keys
    assert len(boxes) == 1000 + 5  # each node; one shape, tensor and outputs list; the node list; the root
