"""vista-jupyter: ``trace_model(model, inputs)`` shows a PyTorch forward pass in a notebook.

The graph appears in the cell's output as an interactive viewer in a sandboxed frame (JupyterLab,
Notebook 7, VS Code, Colab; offline). ``trace_model`` returns a :class:`VistaGraph` to show
again, save as a self-contained HTML page, or read as the graph document. When the model
raises, the partial graph is shown and the original exception is raised again.
``compare(a, b)`` shows what differs between two traces (or two models run on the same inputs)
and returns a :class:`VistaDiff`.

``python -m vista_jupyter.demo`` writes the page of a small demo model that ships with the package.
"""

from __future__ import annotations

from vista_core import TraceInputError

from ._compare import VistaDiff, compare
from ._options import DisplayOptions
from ._trace_model import trace_model
from ._version import __version__
from ._view import VistaGraph

__all__ = [
    "DisplayOptions",
    "TraceInputError",
    "VistaDiff",
    "VistaGraph",
    "__version__",
    "compare",
    "trace_model",
]
