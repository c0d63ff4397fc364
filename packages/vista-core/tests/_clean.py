"""Test helper: snapshots of everything a trace could leave behind in torch, and checks that
tracing left it as it found it.

Tracing must leave no torch-function mode on the stack, no global module hook, no attribute
added to (or replaced in) torch's namespaces, no SIGINT handler of Vista's, and no change to
the traced model (its parameters, buffers, per-module hooks, attributes and training flags). ``torch_left_clean()``
snapshots all of that, runs the body, and compares; the ``torch_clean`` fixture in
``conftest.py`` does the same around a whole test.
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
import torch.fft
import torch.linalg
import torch.nn.functional
import torch.overrides
import torch.special
from torch.nn.modules import module as nn_module

__all__ = ["bitwise_equal", "model_state", "torch_left_clean", "torch_state"]

#: Every global hook registry of torch.nn.modules.module (those this torch version has).
HOOK_REGISTRIES = tuple(
    name
    for name in (
        "_global_forward_hooks",
        "_global_forward_pre_hooks",
        "_global_forward_hooks_always_called",
        "_global_forward_hooks_with_kwargs",
        "_global_backward_hooks",
        "_global_backward_pre_hooks",
        "_global_is_full_backward_hook",
        "_global_module_registration_hooks",
        "_global_parameter_registration_hooks",
        "_global_buffer_registration_hooks",
    )
    if hasattr(nn_module, name)
)

#: Namespaces a tracer could patch or add to.
NAMESPACES: dict[str, Any] = {
    "torch": torch,
    "torch.Tensor": torch.Tensor,
    "torch.nn.Module": torch.nn.Module,
    "torch.nn.functional": torch.nn.functional,
    "torch.linalg": torch.linalg,
    "torch.fft": torch.fft,
    "torch.special": torch.special,
    "torch.overrides": torch.overrides,
    "torch.nn.modules.module": nn_module,
    # Vista routes its calls to the recorder during a trace (torch-function modes do not see them).
    "torch.jit.ScriptFunction": torch.jit.ScriptFunction,
}

#: Python's own bookkeeping, not ours: the warnings machinery creates ``__warningregistry__``
#: in the module a (possibly filtered) warning is attributed to, e.g. torch.overrides when
#: torch lists its overridable functions under ``warnings.catch_warnings()``.
IGNORED_ATTRIBUTES = frozenset({"__warningregistry__"})


def _hook_registry(name: str) -> object:
    value = getattr(nn_module, name)
    if isinstance(value, dict):
        return tuple(value.items())
    return value  # a plain bool on some versions (_global_is_full_backward_hook)


def _compiler_stance() -> object:
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    stance = getattr(eval_frame, "_stance", None)
    return None if stance is None else (id(stance), getattr(stance, "stance", None))


def torch_state() -> dict[str, object]:
    """Everything global a trace could change, as comparable values."""
    state: dict[str, object] = {
        "torch function mode stack": torch._C._len_torch_function_stack(),
        "torch dispatch mode stack": torch._C._len_torch_dispatch_stack(),
        "torch function enabled": torch._C._is_torch_function_enabled(),
        "grad enabled": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "default dtype": torch.get_default_dtype(),
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        "sys trace function": sys.gettrace(),
        "sys profile function": sys.getprofile(),
        "threading trace function": threading.gettrace(),
        "threading profile function": threading.getprofile(),
        "recursion limit": sys.getrecursionlimit(),
        "SIGINT handler": signal.getsignal(signal.SIGINT),
        "garbage collector enabled": gc.isenabled(),
        "garbage collector thresholds": gc.get_threshold(),
        "warnings filters": tuple(warnings.filters),
        # torch.compile's stance ("default", "force_eager", …), once Dynamo is loaded.
        "compiler stance": _compiler_stance(),
    }
    for name in HOOK_REGISTRIES:
        state[f"torch.nn.modules.module.{name}"] = _hook_registry(name)
    for label, namespace in NAMESPACES.items():
        state[f"dir({label})"] = frozenset(dir(namespace)) - IGNORED_ATTRIBUTES
        # Identity of every attribute: catches a replaced function, not only an added one.
        state[f"vars({label})"] = {
            key: id(value) for key, value in vars(namespace).items() if key not in IGNORED_ATTRIBUTES
        }
    return state


def _diff(before: dict[str, object], after: dict[str, object]) -> list[str]:
    problems = []
    for key, old in before.items():
        new = after.get(key)
        if old == new:
            continue
        if isinstance(old, frozenset) and isinstance(new, frozenset):
            problems.append(f"{key}: added {sorted(new - old)}, removed {sorted(old - new)}")
        elif isinstance(old, dict) and isinstance(new, dict):
            changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
            problems.append(f"{key}: changed entries {changed}")
        else:
            problems.append(f"{key}: {old!r} -> {new!r}")
    return problems


def model_state(model: object) -> list[tuple[object, ...]]:
    """What a trace must not change in a model: each parameter and buffer (identity, values,
    requires_grad, grad, version counter) and each submodule's attributes, hooks and mode."""
    if not isinstance(model, torch.nn.Module):
        return []
    state: list[tuple[object, ...]] = []
    for name, p in model.named_parameters(remove_duplicate=False):
        grad = None if p.grad is None else p.grad.detach().clone()
        state.append(("parameter", name, id(p), p.detach().clone(), p.requires_grad, grad, p._version))
    for name, b in model.named_buffers(remove_duplicate=False):
        state.append(("buffer", name, id(b), b.detach().clone(), b._version))
    for name, module in model.named_modules(remove_duplicate=False):
        hooks = tuple(
            (attr, tuple(getattr(module, attr).items()))
            for attr in sorted(vars(module))
            if attr.endswith("hooks") and isinstance(getattr(module, attr), dict)
        )
        state.append(("module", name, id(module), tuple(sorted(vars(module))), module.training, hooks))
    return state


def _same_model_state(before: list[tuple[object, ...]], after: list[tuple[object, ...]]) -> list[str]:
    if len(before) != len(after):
        return [f"model: {len(before)} state entries before, {len(after)} after"]
    problems = []
    for old, new in zip(before, after):
        if len(old) != len(new) or not all(_same(a, b) for a, b in zip(old, new)):
            problems.append(f"model {old[0]} {old[1]!r} changed")
    return problems


def _same(a: object, b: object) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return bitwise_equal(a, b)
    return a == b


def bitwise_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same dtype, shape, device and bits (NaNs equal to NaNs with the same payload)."""
    if a.dtype != b.dtype or a.shape != b.shape or a.device != b.device:
        return False
    if a.device.type == "meta":
        return True
    a_bytes = a.detach().contiguous().reshape(-1).view(torch.uint8)
    b_bytes = b.detach().contiguous().reshape(-1).view(torch.uint8)
    return torch.equal(a_bytes, b_bytes)


@contextmanager
def torch_left_clean(*models: object) -> Iterator[None]:
    """Fail unless the body leaves torch (and ``models``) exactly as it found them.

    The check also runs when the body raises, so ``with torch_left_clean(): trace(...)``
    inside ``pytest.raises`` checks the failing path too.
    """
    before = torch_state()
    models_before = [model_state(m) for m in models]
    try:
        yield
    finally:
        problems = _diff(before, torch_state())
        for model, old in zip(models, models_before):
            problems += _same_model_state(old, model_state(model))
        if problems:
            raise AssertionError("tracing left torch changed:\n  " + "\n  ".join(problems))
