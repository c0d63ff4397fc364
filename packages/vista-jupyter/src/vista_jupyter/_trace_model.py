"""``trace_model``: the one line a notebook user types."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import vista_core

from ._options import DEFAULT_HEIGHT, DEFAULT_WIDTH, DisplayOptions, Theme
from ._traceback import without_vista_frames
from ._view import VistaGraph

__all__ = ["trace_model"]


def trace_model(
    model: Any,
    inputs: Any = (),
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
) -> VistaGraph:
    """Run ``model`` on ``inputs``, show the graph of its forward pass, and return it.

    ``inputs`` is a tensor, a tuple of positional arguments, or a dict of keyword arguments;
    ``kwargs`` adds keyword arguments (``kwargs={"input_ids": ids}`` for Hugging Face models).
    The model runs once and its result is kept in ``.output`` of the returned
    :class:`VistaGraph`. ``stats=True`` records the statistics of every floating op output and
    the first op that produced a NaN or infinite value; ``timing=True`` the wall time of every
    op and module call (see :func:`vista_core.trace`).

    Display options: ``depth`` is the number of module levels open at first (None: the
    viewer's default); ``theme`` is ``"auto"``, ``"light"`` or ``"dark"``; ``height`` and
    ``width`` size the output (an int is pixels, a str any CSS length such as ``"80vh"``);
    ``show_parameters`` / ``show_constants`` show parameter and constant-tensor nodes.
    With ``display=False`` nothing is shown: call ``.show()`` or ``display()`` later.

    If the forward pass raises, the graph up to the failure is shown with the failing call
    marked and the traceback, and then the original exception object is raised again (its
    traceback without Vista's own frames, as if the model had been called directly).
    Bad ``model``/``inputs``/``kwargs`` raise :class:`vista_core.TraceInputError`; bad display
    options raise TypeError or ValueError naming the option.
    """
    options = DisplayOptions.create(
        depth=depth,
        theme=theme,
        height=height,
        width=width,
        show_parameters=show_parameters,
        show_constants=show_constants,
    )
    if not isinstance(display, bool):
        raise TypeError(f"Invalid 'display' argument: {display!r} (type {type(display).__name__}). Pass True or False.")
    captured = vista_core.capture(model, inputs, kwargs=kwargs, stats=stats, timing=timing)
    view = VistaGraph(captured.graph, options, output=captured.output, exception=captured.exception)
    if captured.exception is None:
        if display:
            view.show()
            view._mark_auto_shown()
        return view
    if display:
        try:
            view.show()
        except Exception as display_error:  # the model's exception matters more; say why there's no graph  # noqa: BLE001
            warnings.warn(
                f"Vista could not show the partial graph of the failed forward pass "
                f"({type(display_error).__name__}: {display_error}); the model's exception follows.",
                RuntimeWarning,
                stacklevel=2,
            )
    # The very object the forward pass raised (like Capture.reraise()), with Vista's own frames
    # taken out of its traceback: the notebook shows the error as the model alone would.
    __tracebackhide__ = True  # IPython and pytest leave this frame out of tracebacks
    error = captured.exception
    raise error.with_traceback(without_vista_frames(error.__traceback__))
