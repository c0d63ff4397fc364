"""The page's compact form of a document (``_pack``): lossless, equal values written once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vista_render_html._embed import gzip_base64
from vista_render_html._pack import pack_document, packed_bytes, packed_from_bytes, unpack_document

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


@given(_JSON)
def test_any_json_value_round_trips_through_the_pages_bytes(value: Any) -> None:
    packed = pack_document(value)
    assert packed_from_bytes(packed_bytes(packed)) == [*packed[:2], [tuple(b) for b in packed[2]], packed[3]]
    assert _same(unpack_document(packed_from_bytes(packed_bytes(packed))), value)


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


def _layers(count: int) -> dict[str, Any]:
    """A document-like value of ``count`` repeated layers, each with its own ids and edges."""
    nodes, edges = [], []
    for i in range(count):
        for j, op in enumerate(["linear", "silu", "mul", "linear", "add"]):
            nodes.append({"id": f"n{i}_{j}", "module": f"m{i}", "kind": "op", "label": op,
                          "outputs": [{"shape": [1, 16, 64], "dtype": "float32"}]})
            if j > 0:
                edges.append({"from": f"n{i}_{j - 1}", "to": f"n{i}_{j}", "tensor": {"shape": [1, 16, 64]}})
    return {"nodes": nodes, "edges": edges}


def test_the_pages_bytes_compress_well_below_the_packed_json() -> None:
    # The page reads the boxes' integers from bytes, not from JSON text, and the bytes' planes
    # compress better than the decimal text: a third of the page's payload at 100k nodes.
    packed = pack_document(_layers(2000))
    as_json = gzip_base64(json.dumps(packed, separators=(",", ":")).encode(), level=6)
    as_bytes = gzip_base64(packed_bytes(packed), level=6)
    assert len(as_bytes) < 0.8 * len(as_json), (len(as_bytes), len(as_json))


@pytest.mark.parametrize(("data", "message"), [
    (b"", "too short"),
    (packed_bytes(pack_document([1, 2]))[:-1], "not a multiple of 4"),
    (packed_bytes(pack_document([[1], [2]]))[:-4], "runs past the end"),
])
def test_bytes_that_are_no_packed_form_are_refused_saying_why(data: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        packed_from_bytes(data)
