"""Copy the built viewer into the package: frontend/dist/{vista-viewer.js,
vista-graphviz.wasm.deflate, vista-pdf.js.deflate} -> packages/vista-render-html/src/vista_render_html/static/.

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
SOURCE = PACKAGE.parents[1] / "frontend" / "dist"
TARGET = PACKAGE / "src" / "vista_render_html" / "static"
# The build's files, as vista_render_html._bundle.BUNDLE_FILES lists them (not imported: this
# script also runs where the package is not installed).
FILES = ("vista-viewer.js", "vista-graphviz.wasm.deflate", "vista-pdf.js.deflate")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16] if path.is_file() else "missing"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when they differ")
    args = parser.parse_args(argv)
    missing = [name for name in FILES if not (SOURCE / name).is_file()]
    if missing:
        print(f"{SOURCE} lacks {', '.join(missing)}: build it first (cd frontend && npm run build).", file=sys.stderr)
        return 1
    status = 0
    for name in FILES:
        source, target = SOURCE / name, TARGET / name
        same = target.is_file() and target.read_bytes() == source.read_bytes()
        if args.check:
            print(f"{'in sync' if same else 'DIFFERENT'}: {source} ({_digest(source)}) vs {target} ({_digest(target)})")
            status = status if same else 1
        elif same:
            print(f"already in sync: {name} ({_digest(target)}, {target.stat().st_size} bytes)")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            print(f"copied {source} -> {target} ({_digest(target)}, {target.stat().st_size} bytes)")
    return status

if __name__ == "__main__":
    sys.exit(main())
