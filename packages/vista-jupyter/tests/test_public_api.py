"""The public surface is exactly what ``__all__`` lists, and it all exists."""

from __future__ import annotations

import types

import vista_core
import vista_jupyter
from vista_jupyter import demo


def _public_names(module: types.ModuleType) -> set[str]:
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name != "annotations"
    }


def test_all_is_exactly_the_public_surface() -> None:
    assert sorted(vista_jupyter.__all__) == sorted(
        ["DisplayOptions", "TraceInputError", "VistaDiff", "VistaGraph", "__version__", "compare", "trace_model"]
    )
    assert _public_names(vista_jupyter) | {"__version__"} == set(vista_jupyter.__all__)


def test_every_exported_name_exists() -> None:
    for name in vista_jupyter.__all__:
        assert hasattr(vista_jupyter, name), name


def test_trace_input_error_is_vista_cores() -> None:
    assert vista_jupyter.TraceInputError is vista_core.TraceInputError


def test_version() -> None:
    assert vista_jupyter.__version__ == "0.1.0"


def test_demo_module_surface() -> None:
    assert _public_names(demo) == set(demo.__all__)
