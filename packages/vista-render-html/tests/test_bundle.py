"""The viewer shipped in the package (the bundle and its two assets, the one committed copy of
the build: frontend's `npm run check` fails when it is not what the sources build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vista_render_html import BundleMissingError, _bundle
from vista_render_html._bundle import BUNDLE_FILES, bundle_bytes, static_bytes

PACKAGE = Path(__file__).resolve().parents[1]
STATIC = PACKAGE / "src" / "vista_render_html" / "static"
FRONTEND = PACKAGE.parents[1] / "frontend"


def test_the_build_goes_to_static_and_nowhere_else() -> None:
    if not (FRONTEND / "package.json").is_file():
        pytest.skip("not a monorepo checkout: frontend/ is absent (e.g. testing an sdist)")
    assert sorted(p.name for p in STATIC.iterdir()) == sorted(BUNDLE_FILES)
    assert not (FRONTEND / "dist").exists(), "frontend/dist/ is gone: npm run build writes static/"
    build = (FRONTEND / "scripts" / "build.mjs").read_text(encoding="utf-8")
    assert '"../packages/vista-render-html/src/vista_render_html/static"' in build


def test_package_reads_the_shipped_bundle() -> None:
    data = bundle_bytes()
    assert data == (STATIC / "vista-viewer.js").read_bytes()
    text = data.decode("utf-8")
    # The contract: one IIFE defining globalThis.VistaViewer, no module syntax, no network.
    assert "VistaViewer" in text
    assert not text.lstrip().startswith(("import ", "export "))


def test_a_missing_file_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class _Missing:
        def __truediv__(self, other: str) -> _Missing:
            return self

        def is_file(self) -> bool:
            return False

    monkeypatch.setattr(_bundle.resources, "files", lambda package: _Missing())
    with pytest.raises(BundleMissingError, match=r"static/vista-graphviz\.wasm\.deflate is missing.*npm run build"):
        static_bytes("vista-graphviz.wasm.deflate")
