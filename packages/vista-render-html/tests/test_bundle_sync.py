"""The bundle shipped in the package is byte-for-byte frontend/dist/vista-viewer.js."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vista_render_html._bundle import bundle_bytes

PACKAGE = Path(__file__).resolve().parents[1]
FRONTEND = PACKAGE.parents[1] / "frontend"
SHIPPED = PACKAGE / "src" / "vista_render_html" / "static" / "vista-viewer.js"
SYNC = PACKAGE / "scripts" / "sync_bundle.py"


@pytest.fixture
def frontend_dist() -> Path:
    if not (FRONTEND / "package.json").is_file():
        pytest.skip("not a monorepo checkout: frontend/ is absent (e.g. testing an sdist)")
    built = FRONTEND / "dist" / "vista-viewer.js"
    assert built.is_file(), f"{built} is missing: build the frontend (cd frontend && npm run build)"
    return built


def test_shipped_bundle_is_the_built_one(frontend_dist: Path) -> None:
    assert SHIPPED.is_file(), "run: python packages/vista-render-html/scripts/sync_bundle.py"
    assert SHIPPED.read_bytes() == frontend_dist.read_bytes(), (
        "static/vista-viewer.js differs from frontend/dist/vista-viewer.js: "
        "run python packages/vista-render-html/scripts/sync_bundle.py"
    )


def test_sync_script_check_agrees(frontend_dist: Path) -> None:
    result = subprocess.run([sys.executable, str(SYNC), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("in sync")


def test_package_reads_the_shipped_bundle() -> None:
    data = bundle_bytes()
    assert data == SHIPPED.read_bytes()
    text = data.decode("utf-8")
    # The contract: one IIFE defining globalThis.VistaViewer, no module syntax, no network.
    assert "VistaViewer" in text
    assert not text.lstrip().startswith(("import ", "export "))
