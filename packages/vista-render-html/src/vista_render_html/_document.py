"""Reading the ``document`` argument: a graph object, its dict, or its JSON text.

The reading and the version check are vista-schema's (no torch), the same that vista-core's
readers use; the rest of the document is left to the viewer.
"""

from __future__ import annotations

from vista_schema import read_document

__all__ = ["read_document"]
