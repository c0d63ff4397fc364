"""``python -m vista_jupyter.demo [OUT.html]``: write the demo model's graph as an HTML page.

Traces the tiny vision transformer that ships with vista-jupyter (no download, random
weights) and writes one self-contained page, by default ``./out/vista-demo.html``, then says
where. In a notebook, ``trace_model(demo_model(), demo_inputs())`` shows the same graph.
"""

from __future__ import annotations

import sys

from ._demo_cli import DEFAULT_DEPTH, DEFAULT_OUT, main, write_demo
from ._demo_model import TinyViT, demo_inputs, demo_model

__all__ = ["DEFAULT_DEPTH", "DEFAULT_OUT", "TinyViT", "demo_inputs", "demo_model", "main", "write_demo"]

if __name__ == "__main__":
    sys.exit(main())
