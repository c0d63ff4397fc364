"""Exceptions about graph documents, shared by every Vista package that reads them.

vista-core and vista-render-html re-export these very classes, so one ``except`` clause
catches a document error whichever package raised it::

    VistaError                 base class of everything the Vista packages raise on their own
    └── SchemaError            a document that cannot be read (also a ValueError)
        └── SchemaVersionError the document's major schema version is not supported
            └── DiffVersionError  a diff document's major diff version is not supported
"""

from __future__ import annotations

__all__ = ["DiffVersionError", "SchemaError", "SchemaVersionError", "VistaError"]


class VistaError(Exception):
    """Base class of the errors the Vista packages raise on their own."""


class SchemaError(VistaError, ValueError):
    """A graph document does not follow the schema."""


class SchemaVersionError(SchemaError):
    """A graph document was written with a schema major version this reader cannot read."""

    def __init__(self, document_version: str, supported_version: str) -> None:
        self.document_version = document_version
        self.supported_version = supported_version
        super().__init__(
            f"Graph document has schema version {document_version!r}, but this reader reads schema "
            f"version {supported_version!r} (major {supported_version.split('.')[0]}). Install the "
            "release of the package reading it (vista-core, vista-render-html) that reads this "
            "schema, or re-create the document with a vista-core that writes "
            f"{supported_version!r}."
        )


class DiffVersionError(SchemaVersionError):
    """A diff document was written with a diff major version this reader cannot read."""

    def __init__(self, document_version: str, supported_version: str) -> None:
        self.document_version = document_version
        self.supported_version = supported_version
        SchemaError.__init__(
            self,
            f"Diff document has diff version {document_version!r}, but this reader reads diff version "
            f"{supported_version!r} (major {supported_version.split('.')[0]}). Install the release of the "
            "package reading it (vista-core, vista-render-html) that reads this version, or re-create "
            f"the document with a vista-core that writes {supported_version!r}."
        )
