"""``compare(a, b)``: the diff of two traces shown in a notebook, and ``VistaDiff``, what it returns.

``a`` and ``b`` are traces (``VistaGraph``, ``vista_core.Graph`` or their documents) or models,
which are traced here on the same ``inputs`` (and ``kwargs``) with the options of
``trace_model``. The page is the viewer's diff mode: one union graph with what was added,
removed and changed marked, and side-by-side panes.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import torch

import vista_core
from vista_core import Graph, GraphDiff, TraceInputError
from vista_render_html._text import shown_text  # the one rule for lone surrogates in shown text

from ._options import DEFAULT_HEIGHT, DEFAULT_WIDTH, DisplayOptions, Theme
from ._shown import _Shown
from ._view import VistaGraph

__all__ = ["VistaDiff", "compare"]

_NO_INPUTS: Any = object()


class VistaDiff(_Shown):
    """The comparison of two traces with the options it is shown with, as :func:`compare`
    returns it. ``diff`` is the :class:`vista_core.GraphDiff`; ``a`` and ``b`` are the two
    traces as :class:`VistaGraph` (with the model's ``output`` / ``exception`` when
    :func:`compare` traced them). Shows itself in a notebook like a :class:`VistaGraph`."""

    def __init__(self, a: VistaGraph, b: VistaGraph, options: DisplayOptions | None = None) -> None:
        for name, value in (("a", a), ("b", b)):
            if not isinstance(value, VistaGraph):
                raise TypeError(f"Invalid {name!r} argument: {value!r} (type {type(value).__name__}). Pass a "
                                "VistaGraph; to compare anything else use vista_jupyter.compare(a, b).")
        super().__init__(options)
        self._a, self._b = a, b
        self._diff = vista_core.diff(a.graph, b.graph)

    @property
    def diff(self) -> GraphDiff:
        """The comparison (a :class:`vista_core.GraphDiff`)."""
        return self._diff

    @property
    def a(self) -> VistaGraph:
        """The first trace ("before")."""
        return self._a

    @property
    def b(self) -> VistaGraph:
        """The second trace ("after")."""
        return self._b

    @property
    def equal(self) -> bool:
        """True when the two traces have the same graph (see :attr:`vista_core.GraphDiff.equal`)."""
        return self._diff.equal

    def to_json(self, *, indent: int | None = None) -> str:
        """The diff document as JSON text (``vista_core.DIFF_VERSION``)."""
        return self._diff.to_json(indent=indent)

    def to_dict(self) -> dict[str, Any]:
        """The diff document as plain JSON-compatible data."""
        return self._diff.to_dict()

    def summary(self) -> None:
        """Print :meth:`vista_core.GraphDiff.summary`: the changes, repeated ones grouped."""
        print(self._diff.summary())

    def _document(self) -> GraphDiff:
        return self._diff

    def _name(self) -> str:
        before, after = self._a.graph.root.class_name, self._b.graph.root.class_name
        return f"diff of {before}" if before == after else f"diff of {before} and {after}"

    def __repr__(self) -> str:
        # shown_text: a kernel cannot send a lone surrogate (class names may hold one).
        return shown_text("VistaDiff" + repr(self._diff).removeprefix("GraphDiff"))


def compare(
    a: Any,
    b: Any,
    inputs: Any = _NO_INPUTS,
    *,
    kwargs: Mapping[str, Any] | None = None,
    stats: bool = False,
    timing: bool = False,
    depth: int | None = None,
    theme: Theme = "auto",
    height: int | str = DEFAULT_HEIGHT,
    width: int | str = DEFAULT_WIDTH,
    show_parameters: bool = True,
    show_constants: bool = True,
    display: bool = True,
) -> VistaDiff:
    """Show what differs between two traces, and return the :class:`VistaDiff`.

    ``a`` ("before") and ``b`` ("after") are each a :class:`VistaGraph` (from ``trace_model``),
    a ``vista_core.Graph`` or its document, or a model: models are traced here on ``inputs``
    and ``kwargs``, given as to ``trace_model`` (``compare(model_a, model_b, inputs)``), the
    same for both. ``stats``, ``timing`` and the display options are ``trace_model``'s (the
diff compares neither statistics nor times, but the pages of ``.a`` and ``.b`` show them).

    A model that raises is compared by its graph up to the failure (the diff shows the rest as
    added or removed) and a ``RuntimeWarning`` names the exception, which is kept in
    ``.a.exception`` / ``.b.exception`` rather than raised: the comparison is the result.
    """
    options = DisplayOptions.create(depth=depth, theme=theme, height=height, width=width,
                                    show_parameters=show_parameters, show_constants=show_constants)
    if not isinstance(display, bool):
        raise TypeError(f"Invalid 'display' argument: {display!r} (type {type(display).__name__}). Pass True or False.")
    models = [isinstance(v, torch.nn.Module) for v in (a, b)]
    if not any(models) and (inputs is not _NO_INPUTS or kwargs is not None or stats or timing):
        raise TraceInputError(
            "compare() was given inputs (or kwargs / stats / timing) but no model: they are used only to trace models. "
            "Pass two models with the inputs, or two traces without them."
        )
    sides = [_side(name, value, () if inputs is _NO_INPUTS else inputs, kwargs, stats, timing, options)
             for name, value in (("a", a), ("b", b))]
    view = VistaDiff(sides[0], sides[1], options)
    if display:
        view.show()
        view._mark_auto_shown()
    return view


def _side(name: str, value: Any, inputs: Any, kwargs: Mapping[str, Any] | None, stats: bool, timing: bool,
          options: DisplayOptions) -> VistaGraph:
    if isinstance(value, VistaGraph):
        return value
    if isinstance(value, torch.nn.Module):
        captured = vista_core.capture(value, inputs, kwargs=kwargs, stats=stats, timing=timing)
        if captured.exception is not None:
            error = captured.exception
            warnings.warn(f"Model {name!r} ({type(value).__name__}) raised {type(error).__name__}: {error}. "
                          f"The comparison shows its graph up to the failure; the exception is in "
                          f".{name}.exception.", RuntimeWarning, stacklevel=3)
        return VistaGraph(captured.graph, options, output=captured.output, exception=captured.exception)
    if isinstance(value, Graph):
        return VistaGraph(value, options)
    if isinstance(value, (dict, str, bytes, bytearray)):
        try:
            graph = Graph.from_json(value) if not isinstance(value, dict) else Graph.from_dict(value)
        except vista_core.SchemaError as exc:
            if isinstance(exc, vista_core.SchemaVersionError):
                raise
            raise vista_core.SchemaError(f"Invalid {name!r} argument: {exc}") from exc
        return VistaGraph(graph, options)
    raise TypeError(
        f"Invalid {name!r} argument: {value!r:.80} (type {type(value).__name__}). Pass a VistaGraph (from "
        "trace_model), a vista_core.Graph or its document, or a model (torch.nn.Module) with inputs."
    )
