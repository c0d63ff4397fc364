"""Models that use torch.compile: they are traced as the eager code they compile.

While the model runs, ``torch.compiler.set_stance("force_eager")`` (torch's own switch, torch
2.6 and later) makes compiled modules, ``Module.compile()`` and compiled functions run as plain
eager code, so each of their operations reaches the recorder; Dynamo would otherwise try to
compile the recorder's hooks into its graph and fail. The ``torch.compile(module)`` wrappers
(``OptimizedModule``) are left out of the graph: a compiled model is traced as the module it
holds, and a compiled submodule keeps the path the model's code calls it by (``encoder``, not
``encoder._orig_mod``).

The stance is process-wide, so it is set once for all the traces running at the same time (in
several threads) and put back when the last one ends; other threads' compiled code also runs
eagerly meanwhile.
"""

from __future__ import annotations

import sys
import threading
import warnings
from typing import Any

import torch

__all__ = ["hold_eager", "release_eager", "uncompiled", "without_wrappers"]

# torch warns that global module hooks fire once more for a compiled module's wrapper; the
# recorder skips those wrappers, so the warning would only mislead.
_WRAPPER_HOOK_WARNING = r"Using `torch\.compile\(module\)` when there are global hooks"


def optimized_module_class() -> type[torch.nn.Module] | None:
    """torch.compile's module wrapper class, if Dynamo is loaded (without Dynamo nothing in the
    process is compiled, and importing it would cost a second)."""
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    found = getattr(eval_frame, "OptimizedModule", None)
    return found if isinstance(found, type) and issubclass(found, torch.nn.Module) else None


def uncompiled(model: Any) -> Any:
    """The module a ``torch.compile(module)`` wrapper holds (run eagerly, it computes the same);
    any other model unchanged."""
    wrapper = optimized_module_class()
    while wrapper is not None and isinstance(model, wrapper):
        model = model._orig_mod
    return model


def without_wrappers(modules: list[tuple[str, torch.nn.Module]]) -> tuple[list[tuple[str, torch.nn.Module]], set[int]]:
    """``modules`` (from named_modules, parents first) without the torch.compile wrappers and
    without the ``_orig_mod`` step a wrapper adds to the paths of what it holds; and the
    wrappers' ids."""
    wrapper = optimized_module_class()
    wrappers: set[int] = set()
    if wrapper is None:
        return modules, wrappers
    shown: dict[str, str] = {}  # path in named_modules -> path in the graph
    wrapper_paths: set[str] = set()
    kept = []
    for path, module in modules:
        parent, _, name = path.rpartition(".")
        if path == "" or (name == "_orig_mod" and parent in wrapper_paths):
            shown[path] = shown.get(parent, "")
        else:
            base = shown.get(parent, "")
            shown[path] = f"{base}.{name}" if base else name
        if isinstance(module, wrapper):
            wrappers.add(id(module))
            wrapper_paths.add(path)
        else:
            kept.append((shown[path], module))
    return kept, wrappers


class _Shared:
    """The process-wide settings held while any trace runs: the stance for every trace, the
    warning filter for the traces of models with compiled submodules. Each is set by the first
    trace that needs it and put back by the last (``warnings.catch_warnings`` makes Python
    forget which warnings it has shown, so it is not entered for other models)."""

    lock = threading.Lock()
    stance_users = 0
    stance: Any = None
    filter_users = 0
    filters: Any = None


def hold_eager(*, quiet_wrappers: bool) -> bool:
    """Make compiled code run eagerly until :func:`release_eager`; ``quiet_wrappers`` silences
    torch's warning about hooks on compiled submodules. Nothing is done (and False returned)
    before Dynamo is loaded or on torch < 2.6."""
    set_stance = getattr(torch.compiler, "set_stance", None)
    if "torch._dynamo" not in sys.modules or set_stance is None:
        return False
    with _Shared.lock:
        if _Shared.stance_users == 0:
            _Shared.stance = set_stance("force_eager")  # set now; its __exit__ restores the prior stance
        _Shared.stance_users += 1
        if quiet_wrappers:
            if _Shared.filter_users == 0:
                _Shared.filters = warnings.catch_warnings()
                _Shared.filters.__enter__()
                warnings.filterwarnings("ignore", message=_WRAPPER_HOOK_WARNING)
            _Shared.filter_users += 1
    return True


def release_eager(*, quiet_wrappers: bool) -> None:
    """Undo one :func:`hold_eager` that returned True."""
    with _Shared.lock:
        if quiet_wrappers:
            _Shared.filter_users -= 1
            if _Shared.filter_users == 0:
                filters, _Shared.filters = _Shared.filters, None
                filters.__exit__(None, None, None)
        _Shared.stance_users -= 1
        if _Shared.stance_users == 0:
            stance, _Shared.stance = _Shared.stance, None
            stance.__exit__(None, None, None)
