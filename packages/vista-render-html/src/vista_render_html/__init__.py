"""vista-render-html: one self-contained, interactive HTML page from a Vista graph document.

``render_html(document)`` returns the page as a string, ``save_html(document, path)`` writes
it, and ``read_html(page)`` gives back the document a page embeds. ``document`` is what
``vista_core.trace`` returns (or its dict / JSON text), never a model. The page embeds the
viewer and the graph, loads nothing from the network and works when opened from a file.
"""

from __future__ import annotations

from ._exceptions import BundleMissingError, DocumentError, SchemaVersionError
from ._page import read_html, render_html, save_html
from ._version import SUPPORTED_SCHEMA_VERSION, __version__

__all__ = [
    "SUPPORTED_SCHEMA_VERSION",
    "BundleMissingError",
    "DocumentError",
    "SchemaVersionError",
    "__version__",
    "read_html",
    "render_html",
    "save_html",
]
