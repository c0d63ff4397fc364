"""Versions: the package's own, and the graph schema's (vista-schema's), which moves separately."""

from __future__ import annotations

from vista_schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "__version__"]

__version__ = "0.1.0"
