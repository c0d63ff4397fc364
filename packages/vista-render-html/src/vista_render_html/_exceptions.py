"""Exceptions raised by vista-render-html::

    DocumentError          the document cannot be read as a graph document (a ValueError):
                           vista_schema.SchemaError itself, under the name this package had
    └── SchemaVersionError its schema major version is not the one this renderer reads
                           (vista_schema.SchemaVersionError)
    BundleMissingError     the viewer bundle is not part of this installation (a RuntimeError)

Bad option values raise plain :class:`ValueError` or :class:`TypeError` naming the argument.
"""

from __future__ import annotations

from vista_schema import SchemaError as DocumentError
from vista_schema import SchemaVersionError

__all__ = ["BundleMissingError", "DocumentError", "SchemaVersionError"]


class BundleMissingError(RuntimeError):
    """The viewer's JavaScript bundle is not in this installation."""
