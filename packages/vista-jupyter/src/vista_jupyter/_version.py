"""The package version of vista-jupyter (the graph schema has its own, in vista-core)."""

from __future__ import annotations

__version__ = "0.1.0"
