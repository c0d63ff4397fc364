"""Exceptions raised by vista-core itself.

Exceptions raised by the traced model are never wrapped: they reach the caller as the
very same object. The errors below are Vista's own; the document errors are vista-schema's
very classes (``vista_core.SchemaError is vista_schema.SchemaError``)::

    VistaError                 base class of everything vista-core raises on its own
    ├── TraceInputError        bad arguments to trace() / capture() (also a TypeError)
    └── SchemaError            a document that cannot be read (also a ValueError)
        └── SchemaVersionError the document's major schema version is not supported
            └── DiffVersionError  a diff document's major diff version is not supported
"""

from __future__ import annotations

from vista_schema import DiffVersionError, SchemaError, SchemaVersionError, VistaError

__all__ = ["DiffVersionError", "SchemaError", "SchemaVersionError", "TraceInputError", "VistaError"]


class TraceInputError(VistaError, TypeError):
    """The model or the inputs given to :func:`trace` cannot be traced."""
