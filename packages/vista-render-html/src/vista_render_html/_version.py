"""Versions: the package's own, and the graph schema version this renderer reads."""

from __future__ import annotations

from vista_schema import SCHEMA_VERSION as SUPPORTED_SCHEMA_VERSION

__all__ = ["SUPPORTED_SCHEMA_VERSION", "__version__"]

__version__ = "0.1.0"
