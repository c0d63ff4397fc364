"""Walking nested Python values: finding tensors in them and describing the rest briefly.

Everything here is on the tracer's hot path or writes text into the document, so it is
bounded: long containers and strings are cut, and no object's ``__repr__`` is called unless
its type is known to give short, deterministic text.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

__all__ = ["MAX_ITEMS", "MAX_TEXT", "describe", "iter_tensors", "named_leaves", "safe_repr", "short_text"]

#: Longest text kept for one value, in characters; the rest is replaced by "…".
MAX_TEXT = 120
#: Items of a list, tuple or dict shown before the rest is summarised as "…(+N)".
MAX_ITEMS = 8
#: Deepest nesting of containers walked when looking for tensors.
MAX_DEPTH = 32


def short_text(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, marking the cut with ``…``."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def safe_repr(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters, or ``<TypeName object>`` if it raises."""
    try:
        text = repr(value)
    except Exception:  # a user object's broken __repr__  # noqa: BLE001
        text = f"<{type(value).__qualname__} object>"
    return short_text(text, limit)


def _key_text(key: object) -> str:
    """A mapping key in an input or output name: literals as Python writes them, anything
    else by its type (its repr may raise, be huge, or hold a memory address)."""
    if key is None or isinstance(key, (str, int, float, bool)):
        return repr(key) if not isinstance(key, str) else repr(short_text(key, 60))
    return f"<{type(key).__qualname__}>"


def iter_tensors(value: object, depth: int = 0) -> Iterator[torch.Tensor]:
    """Tensors inside ``value`` (lists, tuples, dicts nested), in a deterministic order."""
    if isinstance(value, torch.Tensor):
        yield value
    elif depth >= MAX_DEPTH:
        return
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, torch.Tensor):
                yield item
            elif isinstance(item, (list, tuple, dict)):
                yield from iter_tensors(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_tensors(item, depth + 1)


def named_leaves(value: object, prefix: str, depth: int = 0) -> Iterator[tuple[str, object]]:
    """Leaves of a nested input or output, each with a readable path such as
    ``out['logits']`` or ``args[1][0]``. Mappings (including Hugging Face ``ModelOutput``),
    dataclasses, named tuples, lists and tuples are walked; anything else is a leaf."""
    if depth >= MAX_DEPTH or isinstance(value, torch.Tensor):
        yield prefix, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            name = f"{prefix}[{_key_text(key)}]" if prefix else (short_text(key, 60) if isinstance(key, str)
                                                                 else _key_text(key))
            yield from named_leaves(item, name, depth + 1)
    elif isinstance(value, tuple) and hasattr(value, "_fields"):
        for key in value._fields:
            yield from named_leaves(getattr(value, key), f"{prefix}.{key}" if prefix else key, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from named_leaves(item, f"{prefix}[{i}]", depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            yield from named_leaves(item, f"{prefix}.{f.name}" if prefix else f.name, depth + 1)
    elif _holds_tensors(value, depth):
        # An object of its own class holding tensors in its attributes, such as a Hugging Face
        # cache (past_key_values.layers[0].keys): its tensors are the leaves, not the object.
        for key, item in vars(value).items():
            if isinstance(key, str) and not key.startswith("_") and _holds_tensors(item, depth + 1):
                yield from named_leaves(item, f"{prefix}.{key}" if prefix else key, depth + 1)
    else:
        yield prefix, value


def _holds_tensors(value: object, depth: int) -> bool:
    """Whether a plain object's public attributes (not those of modules, classes, functions
    or builtins) hold tensors, looking at most :data:`MAX_DEPTH` levels and 64 items a level."""
    if isinstance(value, torch.Tensor):
        return True
    if depth >= MAX_DEPTH:
        return False
    if isinstance(value, (list, tuple)):
        return any(_holds_tensors(v, depth + 1) for v in value[:64])
    if isinstance(value, dict):
        return any(_holds_tensors(v, depth + 1) for v in list(value.values())[:64])
    if (isinstance(value, (type, torch.nn.Module, enum.Enum)) or callable(value)
            or type(value).__module__ == "builtins" or not hasattr(value, "__dict__")):
        return False
    try:
        attributes = list(vars(value).items())[:64]
    except TypeError:
        return False
    return any(isinstance(k, str) and not k.startswith("_") and _holds_tensors(v, depth + 1)
               for k, v in attributes)


def _describe_float(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        return str(value)
    return repr(value)


# Values whose description is their repr() (a bool is an int; nan and inf read the same).
_SCALARS = (int, float, type(None))


def describe(value: Any, tensor_names: Callable[[torch.Tensor], str], depth: int = 0) -> str:
    """A short, deterministic description of an argument value.

    Tensors are named by ``tensor_names``; containers show at most :data:`MAX_ITEMS` items;
    objects of unknown types are shown by their type name only (their ``repr`` may be long,
    may raise, or may contain a memory address that would make documents differ run to run).
    """
    if isinstance(value, _SCALARS):  # most arguments: written as _describe() would, sooner
        return short_text(repr(value))
    return short_text(_describe(value, tensor_names, depth))


def _describe(value: Any, tensor_names: Callable[[torch.Tensor], str], depth: int) -> str:
    if isinstance(value, torch.Tensor):
        return tensor_names(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    if isinstance(value, float):
        return _describe_float(value)
    if isinstance(value, complex):
        return repr(value)
    if isinstance(value, str):
        return repr(short_text(value, 40))
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return str(value)
    if isinstance(value, torch.Size):
        return "(" + ", ".join(str(d) for d in value) + ("," if len(value) == 1 else "") + ")"
    if value is Ellipsis:
        return "..."
    if isinstance(value, slice):
        parts = ["" if p is None else _describe(p, tensor_names, depth + 1) for p in (value.start, value.stop)]
        text = ":".join(parts)
        if value.step is not None:
            text += ":" + _describe(value.step, tensor_names, depth + 1)
        return text
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if depth >= 4:
        return "…"
    if isinstance(value, (list, tuple)):
        if len(value) <= MAX_ITEMS and all(type(v) is int for v in value):  # a shape: the common case
            items = [str(v) for v in value]
        else:
            items = [_describe(v, tensor_names, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"…(+{len(value) - MAX_ITEMS})")
        if isinstance(value, list):
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        keys = list(value)[:MAX_ITEMS]
        items = [f"{_describe(k, tensor_names, depth + 1)}: {_describe(value[k], tensor_names, depth + 1)}"
                 for k in keys]
        if len(value) > MAX_ITEMS:
            items.append(f"…(+{len(value) - MAX_ITEMS})")
        return "{" + ", ".join(items) + "}"
    if callable(value):
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
        if isinstance(name, str):
            return name
    return f"<{type(value).__qualname__}>"
