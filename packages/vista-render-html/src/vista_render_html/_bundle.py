"""The viewer's JavaScript bundle shipped in this package (``static/vista-viewer.js``).

The file is a byte-for-byte copy of ``frontend/dist/vista-viewer.js`` from the monorepo,
copied by ``scripts/sync_bundle.py``; a test fails when the two differ.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from ._embed import gzip_base64
from ._exceptions import BundleMissingError

__all__ = ["BUNDLE_NAME", "bundle_bytes", "bundle_payload"]

BUNDLE_NAME = "vista-viewer.js"


def bundle_bytes() -> bytes:
    """The bundle's bytes; :class:`BundleMissingError` when this installation lacks it."""
    resource = resources.files("vista_render_html") / "static" / BUNDLE_NAME
    if not resource.is_file():
        raise BundleMissingError(
            f"The viewer bundle static/{BUNDLE_NAME} is missing from this vista-render-html installation. "
            "In a source checkout, build the frontend (cd frontend && npm run build) and copy it with "
            "`python packages/vista-render-html/scripts/sync_bundle.py`; otherwise reinstall vista-render-html."
        )
    return resource.read_bytes()


@lru_cache(maxsize=4)
def _compressed(data: bytes) -> str:
    return gzip_base64(data)


def bundle_payload() -> str:
    """The bundle gzip-compressed and base64-encoded (computed once per bundle content)."""
    return _compressed(bundle_bytes())
