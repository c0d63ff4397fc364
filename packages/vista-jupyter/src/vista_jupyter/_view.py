"""``VistaGraph``: a traced graph that a notebook shows, and a user keeps, saves or exports.

It is what :func:`vista_jupyter.trace_model` returns. In a notebook it shows itself as the
interactive viewer in a sandboxed frame (see ``_frame``); ``.save(path)`` writes the same page
as one self-contained HTML file, and ``.graph`` / ``.to_json()`` give the graph document.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vista_core import Graph
from vista_render_html import render_html, save_html
from vista_render_html._text import shown_text  # the one rule for lone surrogates in shown text

from . import _ipython
from ._browser import open_page
from ._frame import iframe_html
from ._options import DisplayOptions

__all__ = ["PAGE_HEIGHT", "VistaGraph"]

#: The viewer's height inside its page: the whole window, which in a notebook is the frame.
PAGE_HEIGHT = "100vh"


class VistaGraph:
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
        self._graph = graph
        self._options = options if options is not None else DisplayOptions()
        self._output = output
        self._exception = exception
        self._frames: dict[DisplayOptions, str] = {}
        self._auto_shown_in: int | None = None

    # -- the data --------------------------------------------------------------------------
    @property
    def graph(self) -> Graph:
        """The graph document (a :class:`vista_core.Graph`)."""
        return self._graph

    @property
    def options(self) -> DisplayOptions:
        """The options this graph is shown and saved with."""
        return self._options

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

    # -- pages -----------------------------------------------------------------------------
    def to_html(self, **options: Any) -> str:
        """The self-contained HTML page of this graph; ``options`` override :attr:`options`
        (``depth``, ``theme``, ``show_parameters``, ``show_constants``)."""
        return self._page(self._options.replace(**options) if options else self._options)

    def save(self, path: str | os.PathLike[str], **options: Any) -> Path:
        """Write the self-contained HTML page to ``path`` and return its path. The file works
        offline, in any browser. ``options`` override :attr:`options` like in :meth:`to_html`."""
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(
                f"Invalid 'path' argument: {path!r} (type {type(path).__name__}). Pass a file "
                "path as a str or pathlib.Path, e.g. 'model.html'."
            )
        chosen = self._options.replace(**options) if options else self._options
        return save_html(self._graph, path, **self._render_kwargs(chosen))

    def show(self, **options: Any) -> None:
        """Show the graph in the current cell's output, optionally with other options
        (``depth``, ``theme``, ``height``, ``width``, ``show_parameters``, ``show_constants``).

        Outside a notebook the page is written to a new file in the temporary folder and opened
        in the default browser (``VISTA_NO_BROWSER=1`` keeps it closed); one line says where."""
        chosen = self._options.replace(**options) if options else self._options
        if _ipython.in_notebook():
            _ipython.publish(self._bundle(chosen))
        else:
            open_page(lambda path: self.save(path, **options), self._graph.root.class_name)

    # -- IPython display protocol ----------------------------------------------------------
    def _repr_html_(self) -> str:
        return self._frame(self._options)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return self._bundle(self._options)

    def _ipython_display_(self) -> None:
        # trace_model() has shown this graph already when it is the last line of a cell:
        # the display hook's Out[n] would show it twice.
        shown_now = self._auto_shown_in is not None and self._auto_shown_in == _ipython.execution_count()
        if shown_now and _ipython.called_by_displayhook():
            return
        _ipython.publish(self._bundle(self._options))

    def _mark_auto_shown(self) -> None:
        """Remember that trace_model() showed this graph in the current execution."""
        self._auto_shown_in = _ipython.execution_count()

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

    # -- helpers ---------------------------------------------------------------------------
    def _title(self) -> str:
        """The frame's accessible name (the page's own title comes from vista-render-html)."""
        return shown_text(f"Vista graph of {self._graph.root.class_name}")

    def _render_kwargs(self, options: DisplayOptions) -> dict[str, Any]:
        return {
            "depth": options.depth,
            "theme": options.theme,
            "height": PAGE_HEIGHT,
            "show_parameters": options.show_parameters,
            "show_constants": options.show_constants,
        }

    def _page(self, options: DisplayOptions) -> str:
        return render_html(self._graph, **self._render_kwargs(options))

    def _frame(self, options: DisplayOptions) -> str:
        if options not in self._frames:
            self._frames[options] = iframe_html(
                self._page(options),
                height=options.height,
                width=options.width,
                title=self._title(),
            )
        return self._frames[options]

    def _bundle(self, options: DisplayOptions) -> dict[str, str]:
        return {"text/html": self._frame(options), "text/plain": repr(self)}
