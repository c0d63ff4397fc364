"""The demo command: trace the shipped demo model and write its page (see ``demo``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import vista_core
from vista_render_html import BundleMissingError
from vista_render_html._text import terminal_text

from ._demo_model import demo_inputs, demo_model
from ._options import THEMES, DisplayOptions
from ._view import VistaGraph

__all__ = ["DEFAULT_DEPTH", "DEFAULT_OUT", "main", "write_demo"]

#: Where the page goes when no path is given (relative to the current directory).
DEFAULT_OUT = Path("out") / "vista-demo.html"
#: Two levels open: the stem and embedding are open, the four transformer blocks folded "×4".
DEFAULT_DEPTH = 2


def write_demo(path: str | Path = DEFAULT_OUT, *, depth: int | None = DEFAULT_DEPTH, theme: str = "auto") -> Path:
    """Trace the demo model and write its page to ``path`` (parent folders are created)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    graph = vista_core.trace(demo_model(), demo_inputs())
    return VistaGraph(graph, DisplayOptions.create(depth=depth, theme=theme)).save(out)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the process exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m vista_jupyter.demo",
        description="Trace Vista's demo model (a tiny vision transformer) and write a self-contained HTML page.",
    )
    parser.add_argument("out", nargs="?", default=str(DEFAULT_OUT),
                        help=f"where to write the page (default: {DEFAULT_OUT})")
    parser.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                        help=f"module levels open at first (default: {DEFAULT_DEPTH})")
    parser.add_argument("--theme", choices=THEMES, default="auto", help="colour theme (default: auto)")
    args = parser.parse_args(argv)
    try:
        written = write_demo(args.out, depth=args.depth, theme=args.theme).resolve()
    except (BundleMissingError, OSError) as exc:
        print(terminal_text(f"vista demo: could not write {args.out!r}: {exc}"), file=sys.stderr)
        return 1
    size_kb = written.stat().st_size / 1024
    print(terminal_text(f"Wrote the Vista demo page to {written} ({size_kb:.0f} KiB). "
                        f"Open it in a browser: {written.as_uri()}"))
    return 0
