"""What every shown object does (``VistaGraph``, ``VistaDiff``): pages, saving, notebook display.

A subclass says what its page shows (:meth:`_Shown._document`, a document ``render_html``
reads) and what it is called (:meth:`_Shown._name`); the pages, the frame and the IPython
display protocol are the same for a graph and for a diff of two graphs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from vista_render_html import render_html, save_html
from vista_render_html._text import shown_text  # the one rule for lone surrogates in shown text

from . import _ipython
from ._browser import open_page
from ._frame import iframe_html
from ._options import DisplayOptions

__all__ = ["PAGE_HEIGHT"]

#: The viewer's height inside its page: the whole window, which in a notebook is the frame.
PAGE_HEIGHT = "100vh"


class _Shown:
    """Base of the objects a notebook shows. By default nothing is shown: override
    :meth:`_document` and :meth:`_name`."""

    def __init__(self, options: DisplayOptions | None) -> None:
        self._options = options if options is not None else DisplayOptions()
        self._frames: dict[DisplayOptions, str] = {}
        self._auto_shown_in: int | None = None

    def _document(self) -> object:
        """What the page shows: a document ``render_html`` reads (a Graph or a GraphDiff)."""
        raise NotImplementedError

    def _name(self) -> str:
        """What is shown, in a few words (the frame's accessible name, the browser line)."""
        raise NotImplementedError

    @property
    def options(self) -> DisplayOptions:
        """The options this is shown and saved with."""
        return self._options

    # -- pages -----------------------------------------------------------------------------
    def to_html(self, **options: Any) -> str:
        """The self-contained HTML page; ``options`` override :attr:`options` (``depth``,
        ``theme``, ``show_parameters``, ``show_constants``)."""
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
        return save_html(self._document(), path, **self._render_kwargs(chosen))

    def show(self, **options: Any) -> None:
        """Show it in the current cell's output, optionally with other options (``depth``,
        ``theme``, ``height``, ``width``, ``show_parameters``, ``show_constants``).

        Outside a notebook the page is written to a new file in the temporary folder and opened
        in the default browser (``VISTA_NO_BROWSER=1`` keeps it closed); one line says where."""
        chosen = self._options.replace(**options) if options else self._options
        if _ipython.in_notebook():
            _ipython.publish(self._bundle(chosen))
        else:
            open_page(lambda path: self.save(path, **options), self._name())

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
        """Remember that it was shown in the current execution (by trace_model or compare)."""
        self._auto_shown_in = _ipython.execution_count()

    # -- helpers ---------------------------------------------------------------------------
    def _title(self) -> str:
        """The frame's accessible name (the page's own title comes from vista-render-html)."""
        return shown_text(f"Vista {self._name()}")

    def _render_kwargs(self, options: DisplayOptions) -> dict[str, Any]:
        return {
            "depth": options.depth,
            "theme": options.theme,
            "height": PAGE_HEIGHT,
            "show_parameters": options.show_parameters,
            "show_constants": options.show_constants,
        }

    def _page(self, options: DisplayOptions) -> str:
        return render_html(self._document(), **self._render_kwargs(options))

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
