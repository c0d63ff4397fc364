"""The page's compact form of a document: each distinct value written once.

A traced document repeats most of its values: every node of a 1,450-layer model names the same
source files, dtypes and shapes, and every object of one kind has the same keys. The page
carries ``[scalars, shapes, boxes, root]`` instead: ``scalars`` the distinct strings, numbers,
booleans and nulls; ``shapes`` the distinct key lists of objects; ``boxes`` the distinct arrays
and objects, children before parents, each ``[-1, ref…]`` (an array) or ``[shape, ref…]`` (an
object with that shape's keys, in order). A ref ``r >= 0`` is ``scalars[r]``, ``r < 0`` is
``boxes[~r]``; ``root`` is the document's ref. Equal arrays and objects become one, so the page
reads far less JSON and builds far fewer objects; the page's loader unpacks it in one loop over
``boxes`` (no recursion), and :func:`unpack_document` is the same for Python readers of a page.
The schema document itself is unchanged: this is only how the page embeds it.

The page holds the packed form as bytes (:func:`packed_bytes`), not as JSON: the boxes are
millions of small integers at 100k nodes, which JSON would spell in decimal for the page to parse
back. The bytes are a little-endian ``uint32`` length, that many bytes of UTF-8 JSON
``[scalars, shapes, root, box count]``, then the boxes as ``int32`` values (each box its tag, a
shape index ``>= 0`` or ``-1 - n`` for an array of ``n`` items, then its refs) in four planes:
every value's lowest byte, then every value's second byte, and so on. In planes the high bytes,
nearly all zero or all ``0xff``, become long runs, which gzip shrinks to about two thirds of
what it makes of the values in order.
"""

from __future__ import annotations

import json
import struct
import sys
from array import array
from typing import Any

from ._text import json_utf8

__all__ = ["pack_document", "packed_bytes", "packed_from_bytes", "unpack_document"]

_LENGTH = struct.Struct("<I")


def pack_document(document: Any) -> list[Any]:
    """``document`` (JSON-like: dicts with str keys, lists, tuples, scalars) in the compact form."""
    scalars: list[Any] = []
    scalar_refs: dict[tuple[type, Any], int] = {}
    shapes: list[list[str]] = []
    shape_refs: dict[tuple[str, ...], int] = {}
    boxes: list[tuple[int, ...]] = []
    box_refs: dict[tuple[int, ...], int] = {}

    def ref(value: Any) -> int:
        kind = type(value)
        if kind is dict:
            keys = tuple(value)
            shape = shape_refs.get(keys)
            if shape is None:
                shape = shape_refs[keys] = len(shapes)
                shapes.append(list(keys))
            box: tuple[int, ...] = (shape, *map(ref, value.values()))
        elif kind is list or kind is tuple:
            box = (-1, *map(ref, value))
        else:
            # By type too, so that True and 1 stay apart; floats by repr, so that -0.0 does.
            key = (kind, repr(value) if kind is float else value)
            found = scalar_refs.get(key)
            if found is None:
                found = scalar_refs[key] = len(scalars)
                scalars.append(value)
            return found
        found = box_refs.get(box)
        if found is None:
            found = box_refs[box] = ~len(boxes)
            boxes.append(box)
        return found

    root = ref(document)
    return [scalars, shapes, boxes, root]


def unpack_document(packed: Any) -> Any:
    """The document that :func:`pack_document` made ``packed`` from (equal values shared)."""
    scalars, shapes, boxes, root = packed
    out: list[Any] = []
    for box in boxes:
        values = [scalars[r] if r >= 0 else out[~r] for r in box[1:]]
        out.append(values if box[0] < 0 else dict(zip(shapes[box[0]], values)))
    return scalars[root] if root >= 0 else out[~root]


def packed_bytes(packed: list[Any]) -> bytes:
    """The page's bytes of a :func:`pack_document` result (see the module docstring).

    Raises ValueError when a scalar is NaN or infinite (JSON has neither)."""
    scalars, shapes, boxes, root = packed
    values = array("i")
    for box in boxes:
        values.append(box[0] if box[0] >= 0 else -len(box))
        values.extend(box[1:])
    if sys.byteorder == "big":
        values.byteswap()
    raw = values.tobytes()
    head = json_utf8(json.dumps([scalars, shapes, root, len(boxes)], ensure_ascii=False,
                                separators=(",", ":"), allow_nan=False))
    return b"".join([_LENGTH.pack(len(head)), head, *(raw[plane::4] for plane in range(4))])


def packed_from_bytes(data: bytes) -> list[Any]:
    """The :func:`pack_document` result that :func:`packed_bytes` made ``data`` from.

    Raises ValueError when ``data`` is not such bytes."""
    try:
        (length,) = _LENGTH.unpack_from(data)
    except struct.error as exc:
        raise ValueError(f"{len(data)} bytes, too short for the packed form's head") from exc
    scalars, shapes, root, count = json.loads(data[4:4 + length])
    planes = data[4 + length:]
    if len(planes) % 4 != 0:
        raise ValueError(f"the packed form's values take {len(planes)} bytes, not a multiple of 4")
    size = len(planes) // 4
    raw = bytearray(len(planes))
    for plane in range(4):
        raw[plane::4] = planes[plane * size:(plane + 1) * size]
    values = array("i")
    values.frombytes(raw)
    if sys.byteorder == "big":
        values.byteswap()
    boxes: list[tuple[int, ...]] = []
    at = 0
    while at < size:
        tag = values[at]
        items = len(shapes[tag]) if tag >= 0 else -1 - tag
        if at + 1 + items > size:
            raise ValueError(f"box {len(boxes)} runs past the end of the packed form's values")
        boxes.append((tag if tag >= 0 else -1, *values[at + 1:at + 1 + items]))
        at += 1 + items
    if len(boxes) != count:
        raise ValueError(f"the packed form holds {len(boxes)} boxes, its head says {count}")
    return [scalars, shapes, boxes, root]
