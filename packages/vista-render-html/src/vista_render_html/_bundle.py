"""The viewer's build shipped in this package (``static/``): the JavaScript bundle and the two
assets its code is handed by the page's loader, raw DEFLATE: Graphviz's WebAssembly and the
PDF chunk.

The files are byte-for-byte copies of ``frontend/dist/`` from the monorepo, copied by
``scripts/sync_bundle.py``; a test fails when the copies differ.
"""

from __future__ import annotations

import base64
from functools import lru_cache
from importlib import resources

from ._embed import gzip_base64
from ._exceptions import BundleMissingError

__all__ = ["ASSETS", "BUNDLE_FILES", "BUNDLE_NAME", "asset_payload", "bundle_bytes", "bundle_payload", "static_bytes"]

BUNDLE_NAME = "vista-viewer.js"
#: The assets by the name the page's loader passes them under (see frontend/src/assets.ts).
ASSETS = {"graphviz": "vista-graphviz.wasm.deflate", "pdf": "vista-pdf.js.deflate"}
#: Every file of the build, as frontend/dist/ has them.
BUNDLE_FILES = (BUNDLE_NAME, *ASSETS.values())


def static_bytes(name: str) -> bytes:
    """One file of the shipped build; :class:`BundleMissingError` when this installation lacks it."""
    resource = resources.files("vista_render_html") / "static" / name
    if not resource.is_file():
        raise BundleMissingError(
            f"The viewer file static/{name} is missing from this vista-render-html installation. "
            "In a source checkout, build the frontend (cd frontend && npm run build) and copy it with "
            "`python packages/vista-render-html/scripts/sync_bundle.py`; otherwise reinstall vista-render-html."
        )
    return resource.read_bytes()


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
