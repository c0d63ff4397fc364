"""Exceptions raised by vista-core itself.

Exceptions raised by the traced model are never wrapped: they reach the caller as the
very same object. The errors below are Vista's own::

    VistaError                 base class of everything vista-core raises on its own
    ├── TraceInputError        bad arguments to trace() / capture() (also a TypeError)
    └── SchemaError            a document that cannot be read (also a ValueError)
        └── SchemaVersionError the document's major schema version is not supported
"""

from __future__ import annotations

__all__ = ["SchemaError", "SchemaVersionError", "TraceInputError", "VistaError"]


class VistaError(Exception):
    """Base class of the errors vista-core raises on its own."""


class TraceInputError(VistaError, TypeError):
    """The model or the inputs given to :func:`trace` cannot be traced."""


class SchemaError(VistaError, ValueError):
    """A graph document does not follow the schema."""


class SchemaVersionError(SchemaError):
    """A graph document was written with a schema major version this reader cannot read."""

    def __init__(self, document_version: str, supported_version: str) -> None:
        self.document_version = document_version
        self.supported_version = supported_version
        super().__init__(
            f"Graph document has schema version {document_version!r}, but this vista-core "
            f"reads schema version {supported_version!r} (major "
            f"{supported_version.split('.')[0]}). Upgrade vista-core to read newer documents, "
            "or re-create the document with this version."
        )
