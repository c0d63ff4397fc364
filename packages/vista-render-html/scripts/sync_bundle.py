"""Copy the built viewer bundle into the package: frontend/dist/vista-viewer.js ->
packages/vista-render-html/src/vista_render_html/static/vista-viewer.js.

Run from anywhere in the monorepo after `npm run build` in frontend/:

    python packages/vista-render-html/scripts/sync_bundle.py          # copy
    python packages/vista-render-html/scripts/sync_bundle.py --check  # exit 1 if they differ

tests/test_bundle_sync.py fails while the two copies differ.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
SOURCE = PACKAGE.parents[1] / "frontend" / "dist" / "vista-viewer.js"
TARGET = PACKAGE / "src" / "vista_render_html" / "static" / "vista-viewer.js"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "missing"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when they differ")
    args = parser.parse_args(argv)
    if not SOURCE.is_file():
        print(f"{SOURCE} does not exist: build it first (cd frontend && npm run build).", file=sys.stderr)
        return 1
    same = TARGET.is_file() and TARGET.read_bytes() == SOURCE.read_bytes()
    if args.check:
        print(f"{'in sync' if same else 'DIFFERENT'}: {SOURCE} ({_digest(SOURCE)}) vs {TARGET} ({_digest(TARGET)})")
        return 0 if same else 1
    if same:
        print(f"already in sync ({_digest(TARGET)}, {TARGET.stat().st_size} bytes)")
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, TARGET)
    print(f"copied {SOURCE} -> {TARGET} ({_digest(TARGET)}, {TARGET.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
