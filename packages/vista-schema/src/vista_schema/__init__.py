"""vista-schema: the Vista graph document's contract, without torch.

The versioned JSON Schema of the graph document (:func:`schema`), the schema version
(:data:`SCHEMA_VERSION`), the one version check every reader uses, reading a document as
a renderer needs it (:func:`read_document`) and full validation (:func:`validate_document`);
and the JSON Schemas of the viewer's options and of the host-theme message, with the checks
of the options read from them (:func:`check_viewer_options`); and the diff document's
(``vista_core.diff``): its JSON Schema (:func:`diff_schema`), version (:data:`DIFF_VERSION`),
reading (:func:`read_diff_document`) and validation (:func:`validate_diff_document`).
vista-core and vista-render-html both read documents through this package and re-export its
exceptions, so a tool or a web service can check and render saved documents where torch is
not installed.
"""

from __future__ import annotations

from ._diff import diff_schema, is_diff_document, read_diff_document, validate_diff_document
from ._exceptions import DiffVersionError, SchemaError, SchemaVersionError, VistaError
from ._options import check_css_length, check_viewer_options, host_theme_schema, viewer_options_schema
from ._reading import check_finite, check_schema_version, parse_json, read_document
from ._validate import schema, validate_document
from ._version import DIFF_VERSION, SCHEMA_VERSION, __version__

__all__ = [
    "DIFF_VERSION",
    "SCHEMA_VERSION",
    "DiffVersionError",
    "SchemaError",
    "SchemaVersionError",
    "VistaError",
    "__version__",
    "check_css_length",
    "check_finite",
    "check_schema_version",
    "check_viewer_options",
    "diff_schema",
    "host_theme_schema",
    "is_diff_document",
    "parse_json",
    "read_diff_document",
    "read_document",
    "schema",
    "validate_diff_document",
    "validate_document",
    "viewer_options_schema",
]
