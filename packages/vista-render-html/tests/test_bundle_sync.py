"""The viewer shipped in the package (the bundle and its two assets) is byte-for-byte
frontend/dist/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vista_render_html import BundleMissingError, _bundle
from vista_render_html._bundle import BUNDLE_FILES, bundle_bytes, static_bytes

PACKAGE = Path(__file__).resolve().parents[1]
FRONTEND = PACKAGE.parents[1] / "frontend"
STATIC = PACKAGE / "src" / "vista_render_html" / "static"
SYNC = PACKAGE / "scripts" / "sync_bundle.py"


@pytest.fixture
def frontend_dist() -> Path:
    if not (FRONTEND / "package.json").is_file():
        pytest.skip("not a monorepo checkout: frontend/ is absent (e.g. testing an sdist)")
    dist = FRONTEND / "dist"
    for name in BUNDLE_FILES:
        assert (dist / name).is_file(), f"{dist / name} is missing: build the frontend (cd frontend && npm run build)"
    return dist


@pytest.mark.parametrize("name", BUNDLE_FILES)
def test_shipped_files_are_the_built_ones(frontend_dist: Path, name: str) -> None:
    shipped = STATIC / name
    assert shipped.is_file(), "run: python packages/vista-render-html/scripts/sync_bundle.py"
    assert shipped.read_bytes() == (frontend_dist / name).read_bytes(), (
        f"static/{name} differs from frontend/dist/{name}: run python packages/vista-render-html/scripts/sync_bundle.py"
    )


def test_sync_script_check_agrees(frontend_dist: Path) -> None:
    result = subprocess.run([sys.executable, str(SYNC), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(BUNDLE_FILES) and all(line.startswith("in sync") for line in lines), result.stdout


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
