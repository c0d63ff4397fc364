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
"""

from __future__ import annotations

from typing import Any

__all__ = ["pack_document", "unpack_document"]


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
