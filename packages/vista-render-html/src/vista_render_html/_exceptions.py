"""Exceptions raised by vista-render-html itself::

    DocumentError          the document cannot be read as a graph document (also a ValueError)
    └── SchemaVersionError its schema major version is not the one this renderer reads
    BundleMissingError     the viewer bundle is not part of this installation (a RuntimeError)

Bad option values raise plain :class:`ValueError` or :class:`TypeError` naming the argument.
"""

from __future__ import annotations

__all__ = ["BundleMissingError", "DocumentError", "SchemaVersionError"]


class DocumentError(ValueError):
    """The value given as ``document`` is not a readable Vista graph document."""


class SchemaVersionError(DocumentError):
    """The document's schema major version is not the one this renderer reads."""

    def __init__(self, document_version: str, supported_version: str) -> None:
        self.document_version = document_version
        self.supported_version = supported_version
        super().__init__(
            f"Graph document has schema version {document_version!r}, but this vista-render-html "
            f"reads schema version {supported_version!r} (major {supported_version.split('.')[0]}). "
            "Install a vista-render-html release that reads this schema, or re-create the document "
            "with a matching vista-core."
        )


class BundleMissingError(RuntimeError):
    """The viewer's JavaScript bundle is not in this installation."""
