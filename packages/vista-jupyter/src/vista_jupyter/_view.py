"""``VistaGraph``: a traced graph that a notebook shows, and a user keeps, saves or exports.

It is what :func:`vista_jupyter.trace_model` returns. In a notebook it shows itself as the
interactive viewer in a sandboxed frame (see ``_frame``); ``.save(path)`` writes the same page
as one self-contained HTML file, and ``.graph`` / ``.to_json()`` give the graph document.
The pages and the display protocol are ``_Shown``'s, shared with ``VistaDiff``.
"""

from __future__ import annotations

from typing import Any

from vista_core import Graph
from vista_render_html._text import shown_text  # the one rule for lone surrogates in shown text

from ._options import DisplayOptions
from ._shown import PAGE_HEIGHT, _Shown

__all__ = ["PAGE_HEIGHT", "VistaGraph"]


class VistaGraph(_Shown):
    """A traced forward pass with the options it is shown with.

    Shows itself in a notebook (``display(g)``, or ``g`` as a cell's last line); ``save()``
    writes a self-contained HTML page; ``graph`` and ``to_json()`` give the document.
    ``output`` is what the model returned (None if it raised), ``exception`` what it raised.
    """

    def __init__(
        self,
        graph: Graph,
        options: DisplayOptions | None = None,
        *,
        output: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        if not isinstance(graph, Graph):
            raise TypeError(
                f"Invalid 'graph' argument: {graph!r} (type {type(graph).__name__}). Pass a "
                "vista_core.Graph, e.g. from vista_core.trace(model, inputs) or Graph.from_json(text)."
            )
        super().__init__(options)
        self._graph = graph
        self._output = output
        self._exception = exception

    # -- the data --------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        """The graph document (a :class:`vista_core.Graph`)."""
        return self._graph

    @property
    def output(self) -> Any:
        """What the model returned, or None when the forward pass raised."""
        return self._output

    @property
    def exception(self) -> BaseException | None:
        """The exception the forward pass raised (the very object), or None."""
        return self._exception

    @property
    def failed(self) -> bool:
        """True when the forward pass raised."""
        return self._graph.failed

    def to_json(self, *, indent: int | None = None) -> str:
        """The graph document as JSON text (schema ``vista_core.SCHEMA_VERSION``)."""
        return self._graph.to_json(indent=indent)

    def to_dict(self) -> dict[str, Any]:
        """The graph document as plain JSON-compatible data."""
        return self._graph.to_dict()

    def summary(self, depth: int = 3) -> None:
        """Print the module table of ``vista_core.Graph.summary(depth)`` (params, FLOPs, bytes)."""
        print(self._graph.summary(depth))

    # -- what _Shown shows ------------------------------------------------------------------
    def _document(self) -> Graph:
        return self._graph

    def _name(self) -> str:
        return self._graph.root.class_name

    def _title(self) -> str:
        """The frame's accessible name (the page's own title comes from vista-render-html)."""
        return shown_text(f"Vista graph of {self._graph.root.class_name}")

    def __repr__(self) -> str:
        g = self._graph
        ops = sum(1 for _ in g.ops())
        text = (
            f"VistaGraph({g.root.class_name}: {len(g.modules)} module calls, {ops} ops, "
            f"{len(g.edges)} edges"
        )
        if g.error is not None:
            text += f"; failed with {g.error.type}: {g.error.message[:120]}"
        return shown_text(text + ")")  # a kernel cannot send a lone surrogate
