"""The viewer's build shipped in this package (``static/``): the JavaScript bundle and the two
assets its code is handed by the page's loader, raw DEFLATE: Graphviz's WebAssembly and the
PDF chunk.

``static/`` is the one committed copy of the build: the frontend's ``npm run build`` writes it,
and its drift check (``npm run check``) fails when it is not what the sources build.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from importlib import resources

from ._embed import gzip_base64
from ._exceptions import BundleMissingError

__all__ = [
    "ASSETS", "BUNDLE_FILES", "BUNDLE_NAME", "asset_payload", "bundle_bytes", "bundle_payload", "shipped_bytes",
    "static_bytes",
]

BUNDLE_NAME = "vista-viewer.js"
#: The assets by the name the page's loader passes them under (see frontend/src/assets.ts).
ASSETS = {"graphviz": "vista-graphviz.wasm.deflate", "pdf": "vista-pdf.js.deflate"}
#: Every file of the build, as ``npm run build`` writes them into static/.
BUNDLE_FILES = (BUNDLE_NAME, *ASSETS.values())


def shipped_bytes(folder: str, name: str, missing: str) -> bytes:
    """A file shipped in this package's ``folder``; :class:`BundleMissingError` saying ``missing``
    when this installation lacks it."""
    resource = resources.files("vista_render_html") / folder / name
    if not resource.is_file():
        raise BundleMissingError(missing)
    return resource.read_bytes()


def static_bytes(name: str) -> bytes:
    """One file of the shipped build; :class:`BundleMissingError` when this installation lacks it."""
    return shipped_bytes(
        "static",
        name,
        f"The viewer file static/{name} is missing from this vista-render-html installation. "
        "In a source checkout, build the frontend (cd frontend && npm ci && npm run build), which writes "
        "static/; otherwise reinstall vista-render-html.",
    )


def bundle_bytes() -> bytes:
    """The bundle's code."""
    return static_bytes(BUNDLE_NAME)


@lru_cache(maxsize=4)
def _compressed(data: bytes) -> str:
    return gzip_base64(data)


@lru_cache(maxsize=8)
def _encoded(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def bundle_payload() -> str:
    """The bundle's code gzip-compressed and base64-encoded (computed once per content)."""
    return _compressed(bundle_bytes())


def asset_payload(name: str) -> str:
    """An asset (a key of :data:`ASSETS`) as base64 of its raw DEFLATE bytes, as the page
    embeds it: already compressed, so it is not gzipped again (computed once per content)."""
    return _encoded(static_bytes(ASSETS[name]))
