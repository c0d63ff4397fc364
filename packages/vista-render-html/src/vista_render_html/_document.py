"""Reading the ``document`` argument: a graph object, its dict, or its JSON text.

The renderer never imports vista-core (which imports torch): it reads the document as plain
JSON data, checks the schema major version against :data:`SUPPORTED_SCHEMA_VERSION` and the
few top-level fields the page needs, and leaves the rest to the viewer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ._exceptions import DocumentError, SchemaVersionError
from ._version import SUPPORTED_SCHEMA_VERSION

__all__ = ["read_document"]

_ACCEPTED = "a vista_core.Graph (or any object with to_dict()), its to_dict() result, or its JSON text"


def _is_torch_module(value: object) -> bool:
    # torch is only consulted when the caller already imported it: never import it here.
    torch = sys.modules.get("torch")
    nn = getattr(torch, "nn", None)
    module_type = getattr(nn, "Module", None)
    return isinstance(module_type, type) and isinstance(value, module_type)


def read_document(document: object) -> dict[str, Any]:
    """Return the document as a dict after checking its schema version and top-level shape.

    Raises :class:`TypeError` for values that are not a document at all (a model, a path, a
    number), :class:`DocumentError` for a document that cannot be read, and
    :class:`SchemaVersionError` for an unsupported schema major version.
    """
    if _is_torch_module(document):
        raise TypeError(
            f"Invalid 'document' argument: a model ({type(document).__name__}) was given. "
            "vista-render-html draws graph documents, not models: call "
            "vista_core.trace(model, inputs) first and pass the Graph it returns."
        )
    data: object
    if isinstance(document, dict):
        data = document
    elif isinstance(document, (str, bytes, bytearray)):
        try:
            data = json.loads(document)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise DocumentError(
                f"Invalid 'document' argument: the text is not valid JSON ({exc}); pass {_ACCEPTED}."
            ) from None
    elif callable(getattr(document, "to_dict", None)):
        data = document.to_dict()  # type: ignore[attr-defined]  # any Graph-like object
    else:
        raise TypeError(
            f"Invalid 'document' argument of type {type(document).__name__}: {_short(document)}; "
            f"pass {_ACCEPTED}."
        )
    if not isinstance(data, dict):
        raise DocumentError(
            f"Invalid 'document' argument: a graph document is a JSON object, got {type(data).__name__} "
            f"{_short(data)}."
        )
    _check_version(data.get("schema_version"))
    _check_shape(data)
    return data


def _check_version(version: object) -> None:
    if not isinstance(version, str) or version.count(".") != 1 or not all(
        part.isdigit() for part in version.split(".")
    ):
        raise DocumentError(
            f"Invalid 'document' argument: no valid 'schema_version' (expected a 'major.minor' string "
            f"like {SUPPORTED_SCHEMA_VERSION!r}, got {_short(version)})."
        )
    if version.split(".")[0] != SUPPORTED_SCHEMA_VERSION.split(".")[0]:
        raise SchemaVersionError(version, SUPPORTED_SCHEMA_VERSION)


def _check_shape(data: dict[str, Any]) -> None:
    for key in ("modules", "nodes", "edges"):
        if not isinstance(data.get(key), list):
            raise DocumentError(
                f"Invalid 'document' argument: {key!r} must be a list, got {_short(data.get(key))}. "
                "Check it with vista_core.validate_document(document)."
            )
    modules = data["modules"]
    if not modules or not isinstance(modules[0], dict) or modules[0].get("parent") is not None:
        raise DocumentError(
            "Invalid 'document' argument: 'modules' must start with the root module call "
            "(parent null). Check it with vista_core.validate_document(document)."
        )


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
