"""Versions: the package's own, and the graph schema version this renderer reads."""

from __future__ import annotations

__version__ = "0.1.0"

#: The graph schema version this renderer was written against, ``"major.minor"``. Documents
#: with the same major version are accepted (minor versions only add optional fields). Kept
#: equal to ``vista_core.SCHEMA_VERSION`` by a test: vista-core is not imported here, because
#: it imports torch.
SUPPORTED_SCHEMA_VERSION = "1.0"
