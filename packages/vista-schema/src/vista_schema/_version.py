"""Versions: the package's own, and the graph schema's, which moves separately."""

from __future__ import annotations

__version__ = "0.1.0"

#: Version of the graph document format, ``"major.minor"``. A reader accepts any document
#: with the same major version; minor versions only add optional fields.
SCHEMA_VERSION = "1.1"

#: Version of the diff document format (``vista_core.diff``), ``"major.minor"``, separate from
#: the graph schema's: a diff document embeds graph documents of their own schema version.
DIFF_VERSION = "1.0"
