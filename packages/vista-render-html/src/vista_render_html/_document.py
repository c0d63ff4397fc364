"""Reading the ``document`` argument: a graph or a diff, as an object, its dict, or its JSON text.

The reading and the version checks are vista-schema's (no torch), the same that vista-core's
readers use; the rest of the document is left to the viewer, which tells a diff document (the
comparison of two traces, ``vista_core.diff``) from a graph document by its ``diff_version``.
"""

from __future__ import annotations

from typing import Any

from vista_schema import is_diff_document, parse_json, read_diff_document
from vista_schema import read_document as read_graph_document

__all__ = ["read_document"]


def read_document(document: object) -> dict[str, Any]:
    """The graph or diff document as a dict (not copied), its version and top-level shape checked.

    ``document`` is a ``vista_core.Graph`` or ``vista_core.GraphDiff`` (any object with
    ``to_dict()``), its dict, or its JSON text."""
    data: object = document
    if isinstance(data, (str, bytes, bytearray)):
        data = parse_json(data)
    elif not isinstance(data, dict) and callable(getattr(data, "to_dict", None)):
        data = data.to_dict()  # type: ignore[attr-defined]  # a Graph or GraphDiff
    if is_diff_document(data):
        return read_diff_document(data)
    # Anything but an object is refused by the graph reader, from the value given, naming it.
    return read_graph_document(data if isinstance(data, dict) else document)
