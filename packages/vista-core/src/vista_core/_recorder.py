"""Recording a forward pass: tensor operations through a TorchFunctionMode, module calls
through global module forward hooks.

Both mechanisms are public and scoped: the mode lives on this thread's mode stack only while
the trace runs, and the hooks are removed through their handles in ``finally``. Nothing in
torch is patched, so nothing can be left patched.

The recorder keeps light records while the model runs (this is the hot path) and turns them
into the document's records in :meth:`Recorder.finish`.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from time import perf_counter_ns as _perf_counter_ns
from types import FrameType
from typing import Any

import torch
from torch.overrides import TorchFunctionMode, resolve_name

from ._cost import Replay, replay_spec
from ._fastpath import LineLender, check_lines, forward_code
from ._source import SourceFinder
from ._stats import StatsRecorder
from ._timing import Timer
from ._values import describe, iter_tensors, named_leaves

__all__ = ["CallRec", "Known", "Meta", "NodeRec", "Recorder", "meta_text", "tensor_meta"]

Where = tuple[str, int, str]
# A parameter or buffer of the model: (kind, the tensor, every (qualified name, owner's path,
# own name) it has in the model, the first one as named_parameters() gives it).
Known = tuple[str, torch.Tensor, tuple[tuple[str, str, str], ...]]
# (shape, dtype, device, requires_grad), as torch objects: see tensor_meta().
Meta = tuple[tuple[int, ...], Any, Any, bool]

_META_TEXT: dict[tuple[Any, Any], tuple[str, str]] = {}
_NAMES: dict[Any, tuple[str, str]] = {}


def _warm_up_name_table() -> None:
    """Build torch's table of overridable functions now, at import, with its deprecation
    warnings silenced: torch builds it lazily on the first resolve_name() call, and that must
    not happen in the middle of a user's trace (it reads deprecated torch attributes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolve_name(torch.add)


_warm_up_name_table()

#: Constants with at most this many elements get their values written into the document.
CONSTANT_PREVIEW_NUMEL = 8


def tensor_meta(t: torch.Tensor) -> Meta:
    """(shape, dtype, device, requires_grad) of a tensor, as torch objects (turned into text
    once, when the document is built: this runs for every tensor); never raises."""
    try:
        return t.shape, t.dtype, t.device, t.requires_grad
    except Exception:  # nested, sparse or exotic subclasses may refuse  # noqa: BLE001
        return _odd_meta(t)


def _odd_meta(t: torch.Tensor) -> Meta:
    """tensor_meta() of a tensor without sizes: a nested tensor (from a fused fast path) gets
    the shape of its padded form (the largest size in each dimension, as to_padded_tensor()
    makes it); anything else gets no shape, and what it does give."""
    shape: tuple[int, ...] = ()
    with contextlib.suppress(Exception):
        if t.is_nested:
            sizes = t._nested_tensor_size()
            shape = (int(sizes.shape[0]), *(int(d) for d in sizes.amax(dim=0).tolist()))
    dtype = device = None
    requires_grad = False
    with contextlib.suppress(Exception):
        dtype, device, requires_grad = t.dtype, t.device, bool(t.requires_grad)
    return shape, dtype, device, requires_grad


def meta_text(dtype: Any, device: Any) -> tuple[str, str]:
    """The document's text for a dtype and a device from :func:`tensor_meta`."""
    key = (dtype, device)
    found = _META_TEXT.get(key)
    if found is None:
        found = _META_TEXT[key] = (
            "unknown" if dtype is None else str(dtype).removeprefix("torch."),
            "unknown" if device is None else str(device),
        )
    return found


def op_names(func: Any) -> tuple[str, str]:
    """(qualified name, short label) of a torch function, e.g.
    ``("torch.Tensor.__add__", "add")`` or ``("torch.nn.functional.linear", "linear")``."""
    try:
        cached = _NAMES.get(func)
    except TypeError:  # unhashable callable
        cached = None
    if cached is not None:
        return cached
    name = resolve_name(func)
    if name is None:
        module = getattr(func, "__module__", None) or "torch"
        qual = getattr(func, "__qualname__", None) or getattr(func, "__name__", None) or repr(func)
        # torch's private functions (the fused kernels of fast paths) are called torch._name.
        qual = qual.removeprefix("_VariableFunctionsClass.")
        name = f"{module}.{qual}"
    if name.startswith("torch.functional."):
        name = "torch." + name[len("torch.functional.") :]
    parts = name.split(".")
    last = parts[-1]
    if last == "__get__" and len(parts) > 1:  # property read, e.g. torch.Tensor.T.__get__
        last = parts[-2]
    if last.startswith("__") and last.endswith("__") and len(last) > 4:
        last = last[2:-2]
    result = (name, last)
    with contextlib.suppress(TypeError):  # unhashable callables are simply not cached
        _NAMES[func] = result
    return result


def name_op(func: Any, name: str, label: str) -> None:
    """Give a callable that is not torch's (a script function's stand-in) its op name and label."""
    _NAMES[func] = (name, label)


_CALL_IMPL_CODE = torch.nn.Module._call_impl.__code__


def _version(t: torch.Tensor) -> int:
    try:
        return int(t._version)
    except Exception:  # inference tensors have no version counter  # noqa: BLE001
        return -1


def _base(t: torch.Tensor) -> torch.Tensor:
    base = t._base
    return t if base is None else base


class CallRec:
    """One module call while recording."""

    __slots__ = ("index", "module", "parent", "path", "call_index", "where", "failed", "entered", "inputs",
                 "outputs")

    def __init__(self, index: int, module: Any, parent: CallRec | None, path: str, call_index: int,
                 where: Where | None) -> None:
        self.index = index
        self.module = module
        self.parent = parent
        self.path = path
        self.call_index = call_index
        self.where = where
        self.failed = False
        self.entered = False
        # The tensors the call received and returned: (name, source node, source port, meta).
        self.inputs: list[Flow] = []
        self.outputs: list[Flow] = []


class NodeRec:
    """One node while recording."""

    __slots__ = ("index", "kind", "name", "label", "call", "outputs", "arguments", "where", "value", "error",
                 "replay")

    def __init__(self, index: int, kind: str, name: str, label: str, call: CallRec,
                 where: Where | None = None) -> None:
        self.index = index
        self.kind = kind
        self.name = name
        self.label = label
        self.call = call
        self.outputs: list[Meta] = []
        self.arguments: list[tuple[str | None, str]] = []
        self.where = where
        self.value: str | None = None
        self.error: tuple[str, str] | None = None
        self.replay: Replay | None = None  # how to run an op again on meta tensors, for its FLOPs


# One tensor a module call received or returned: (name, source node, source port, meta).
Flow = tuple[str, int, int, Meta]

# Which node output last produced (or wrote) a tensor: (weakref to the tensor, node, port,
# the tensor's version then, its meta). A plain tuple: one is made for every tensor produced.
_Entry = tuple[Any, int, int, int, Meta]

_Tensor = torch.Tensor
_Size = torch.Size
_get_ident = threading.get_ident
_CONTAINERS = (list, tuple, dict)
_NO_TORCH_FUNCTION = torch._C.DisableTorchFunction
_functorch = torch._C._functorch
# "tensor#0", "tensor#1", …: how an op's arguments name its input tensors, made once.
_TENSOR_TEXTS = 16
_TENSOR_TEXT = tuple(f"tensor#{i}" for i in range(_TENSOR_TEXTS))


class Recorder(TorchFunctionMode):
    """Records ops and module calls of one forward pass on the current thread.

    It is put on torch and taken off by a :class:`vista_core._lifecycle.Session`; see
    :func:`vista_core.capture`.
    """

    def __init__(self, root: Any, root_path_map: dict[int, str],
                 params: dict[int, Known],
                 transparent: set[int] | frozenset[int] = frozenset()) -> None:
        super().__init__()
        self.thread = threading.get_ident()
        self.finder = SourceFinder()
        self.nodes: list[NodeRec] = []
        # (source node, source port, target node, target port, tensor meta)
        self.edges: list[tuple[int, int, int, int, Meta]] = []
        self.calls: list[CallRec] = []
        self.stack: list[CallRec] = []
        self.module_paths = root_path_map
        # Modules outside the index named by a read of their parameters before any call of
        # theirs -> the tensors that named them, until their first call.
        self.named_before_call: dict[int, list[torch.Tensor]] = {}
        self.params = params
        # One node per parameter and module call that reads it, by (tensor id, call index):
        # a shared or tied tensor is drawn where each call uses it, never as an edge between calls.
        self.param_nodes: dict[tuple[int, int], _Entry] = {}
        # Modules whose calls are not recorded (torch.compile's wrappers: the module each holds is).
        self.transparent = transparent
        self.call_counts: dict[int, int] = {}
        self.producers: dict[int, _Entry] = {}
        self.writers: dict[int, _Entry] = {}
        # Writes to tensors without version counters (inference mode, where views do not
        # know their base either), by the address of the storage written.
        self.storage_writers: dict[int, _Entry] = {}
        # The latest op output over each storage, by the id of the storage's Python object (torch
        # keeps that object while the storage lives), with a weakref to it: a new tensor over an
        # op's data (nn.Parameter(t), a vmap result) finds its producer after t itself died.
        self.storages: dict[int, tuple[Any, _Entry]] = {}
        self.failed_ops: dict[int, tuple[BaseException, int]] = {}
        # The constant nodes by tensor id, with a weakref to the tensor: one that turns out to be
        # a parameter or buffer of a module first called later becomes that tensor's node.
        self.constants: dict[int, tuple[Any, NodeRec]] = {}
        # The model's tensor inputs as the root call received them (its input nodes).
        self.input_flows: list[Flow] = []
        self.first_failed_call: dict[int, tuple[BaseException, CallRec]] = {}
        # Forwards that ask has_torch_function() get the answer of a run without Vista.
        self.lender = LineLender(self)
        self._checks_of: dict[type, tuple[Any, frozenset[int], tuple[str, ...]]] = {}
        # Tensor statistics of op outputs, when traced with stats=True.
        self.stats: StatsRecorder | None = None
        # Wall times of ops and module calls, when traced with timing=True.
        self.timer: Timer | None = None
        self.root = CallRec(0, root, None, "", 0, self.finder.here())
        self.calls.append(self.root)
        self.stack.append(self.root)
        self.root.entered = not isinstance(root, torch.nn.Module)

    # -- module calls ----------------------------------------------------------------
    def _checks(self, module: torch.nn.Module) -> tuple[Any, frozenset[int], tuple[str, ...]]:
        """(forward's code, its has_torch_function lines, the names of its positional
        parameters) of a module, cached per class."""
        cls = type(module)
        found = None if "forward" in module.__dict__ else self._checks_of.get(cls)
        if found is None:
            code = forward_code(module)
            if code is None:
                found = (None, frozenset(), ())
            else:
                found = (code, check_lines(code), code.co_varnames[1 : code.co_argcount])  # after self
            if "forward" not in module.__dict__:
                self._checks_of[cls] = found
        return found

    def _flows(self, value: object, name: str, into: list[Flow]) -> None:
        """Append the tensors inside ``value`` to ``into``, each with its source now."""
        if isinstance(value, _Tensor):
            # _source()'s first case, inlined: most tensors a call receives or returns were
            # produced by a recorded op and not written since.
            entry = self.producers.get(id(value))
            if entry is not None and entry[0]() is value:
                try:
                    version = value._version
                except Exception:  # noqa: BLE001  # an inference tensor
                    version = -1
                if entry[3] == version != -1:
                    into.append((name, entry[1], entry[2], entry[4]))
                    return
            into.append((name, *self._source(value, _version(value))))
        elif isinstance(value, (list, tuple, dict)) or hasattr(value, "__dataclass_fields__"):
            for leaf_name, leaf in named_leaves(value, name):
                if isinstance(leaf, _Tensor):
                    self._flows(leaf, leaf_name, into)

    def _pre_hook(self, module: torch.nn.Module, args: object) -> None:
        if _get_ident() != self.thread or id(module) in self.transparent:
            return
        code, lines, names = self._checks(module)
        if lines:
            self.lender.enter(module, code, lines)
        if module is self.root.module and not self.root.entered:
            self.root.entered = True
            return
        parent = self.stack[-1]
        path = self.module_paths.get(id(module))
        if path is None:
            path = self._new_module(module, parent)[0]
        elif self.named_before_call and id(module) in self.named_before_call:
            self._initialised(self.named_before_call.pop(id(module)))
        key = id(module)
        count = self.call_counts.get(key, 0)
        self.call_counts[key] = count + 1
        call = CallRec(len(self.calls), module, parent, path, count, self.finder.user_frame(sys._getframe(1)))
        if args:
            # Vista's reads of the inputs (shapes, versions) are not the caller's modes' business.
            with _NO_TORCH_FUNCTION():
                for i, value in enumerate(args):  # type: ignore[arg-type, var-annotated]  # a tuple from torch
                    self._flows(value, names[i] if i < len(names) else f"args[{i}]", call.inputs)
        self.calls.append(call)
        self.stack.append(call)

    def _opaque_outputs(self, call: CallRec, output: object) -> None:
        """Outputs of a call that no op seen produced (a torch.jit.script module, code the
        mode cannot see) come from one opaque node in the call, fed by the call's inputs."""
        unseen: list[torch.Tensor] = []
        for t in iter_tensors(output):
            entry = self.producers.get(id(t))
            if ((entry is None or entry[0]() is not t) and id(t) not in self.params
                    and not any(t is u for u in unseen) and self._alias_of(t) is None):
                unseen.append(t)
        if not unseen:
            return
        module = call.module
        # A tensor the module holds as a plain attribute (a cached table) is a constant.
        held = getattr(module, "__dict__", {}).values()
        unseen = [t for t in unseen if not any(t is v for v in held)]
        if not unseen:
            return
        cls = type(module)
        scripted = isinstance(module, torch.jit.ScriptModule)
        node = self._new_node("op", f"{cls.__module__}.{cls.__qualname__}.forward",
                              "TorchScript" if scripted else "opaque", call, call.where)
        for port, (name, source, source_port, meta) in enumerate(call.inputs):
            self.edges.append((source, source_port, node.index, port, meta))
            node.arguments.append((name, _TENSOR_TEXT[port] if port < _TENSOR_TEXTS else f"tensor#{port}"))
        for port, t in enumerate(unseen):
            meta = tensor_meta(t)
            node.outputs.append(meta)
            self.producers[id(t)] = entry = (weakref.ref(t), node.index, port, _version(t), meta)
            self._remember_storage(t, entry)

    def _new_module(self, module: torch.nn.Module, parent: CallRec, name: str | None = None,
                    initialised: bool = True) -> tuple[str, list[torch.Tensor]]:
        """The path of a module made or swapped in during the forward pass: ``name`` if given,
        else the attribute name its caller holds it under (``attention``, as BigBird's code
        names it), else its class in angle brackets; its parameters and buffers become known
        under that path (and, if ``initialised``, were set up by the ops that ran on them
        before: see :meth:`_initialised`). Returns the path and those tensors."""
        prefix = parent.path + "." if parent.path else ""
        if name is None:
            children = getattr(parent.module, "_modules", None) or {}
            name = next((k for k, child in children.items() if child is module), None)
        path = prefix + (name if name is not None else f"<{type(module).__name__}>")
        self.module_paths[id(module)] = path
        fresh: list[torch.Tensor] = []
        with _NO_TORCH_FUNCTION():
            for sub_path, sub in module.named_modules(prefix=path):
                self.module_paths.setdefault(id(sub), sub_path)
                for attribute, kind in (("_parameters", "parameter"), ("_buffers", "buffer")):
                    for own, t in getattr(sub, attribute).items():
                        if t is not None and id(t) not in self.params:
                            name = f"{sub_path}.{own}"
                            self.params[id(t)] = (kind, t, ((name, sub_path, own),))
                            self._constant_was_parameter(t, kind, name, own)
                            fresh.append(t)
        if initialised:
            self._initialised(fresh)
        return path, fresh

    def _initialised(self, tensors: list[torch.Tensor]) -> None:
        """Ops that ran on a new module's parameters and buffers before its first call (the
        constructor's init, a user's nn.init call) set them up: their readers read them."""
        for t in tensors:
            self.producers.pop(id(t), None)
            self.writers.pop(id(t), None)

    def _constant_was_parameter(self, t: torch.Tensor, kind: str, name: str, own: str) -> None:
        """A constant node made for ``t`` before its module was known (an init op or a parent
        read it first) is that parameter's node in the call that read it."""
        found = self.constants.pop(id(t), None)
        if found is None or found[0]() is not t:
            return
        node = found[1]
        node.kind, node.name, node.label, node.value, node.where = kind, name, own, None, None
        self.param_nodes[(id(t), node.call.index)] = (found[0], node.index, 0, _version(t), node.outputs[0])

    def _post_hook(self, module: torch.nn.Module, args: object, *rest: object) -> None:
        """Registered with_kwargs: (kwargs, output) after a forward that returned; torch
        passes only (output) from its `except` block when the forward raised."""
        if _get_ident() != self.thread or id(module) in self.transparent:
            return
        if self.lender.calls:
            self.lender.leave(module)
        # torch calls always_call hooks from _call_impl's own `except` block when forward
        # raised, and from its inner() otherwise: that is how a failed call is told apart.
        frame = sys._getframe(1)
        exc = sys.exc_info()[1] if frame.f_code is _CALL_IMPL_CODE else None
        stack = self.stack
        # Pop this module's call; calls above it were left by an exception caught inside it.
        for depth in range(len(stack) - 1, 0, -1):
            if stack[depth].module is module:
                for call in stack[depth + 1 :]:
                    call.failed = True
                call = stack[depth]
                if exc is None and len(rest) == 2:
                    kwargs, output = rest
                else:  # from the `except` block: its frame still holds the call's kwargs
                    kwargs, output = frame.f_locals.get("kwargs"), None
                if kwargs or output is not None:
                    with _NO_TORCH_FUNCTION():
                        if isinstance(kwargs, dict):
                            for key, value in kwargs.items():
                                self._flows(value, str(key), call.inputs)
                        if output is not None:
                            self._opaque_outputs(call, output)
                            self._flows(output, "output", call.outputs)
                del stack[depth:]
                if exc is not None:
                    call.failed = True
                    self.first_failed_call.setdefault(id(exc), (exc, call))
                return

    # -- tensor operations -----------------------------------------------------------
    def __torch_function__(self, func: Callable[..., Any], types: Any, args: tuple[Any, ...] = (),
                           kwargs: dict[str, Any] | None = None) -> Any:
        # The hot path: find input tensors and their versions, run, and record only calls
        # that produce or write a tensor (property reads and .size() are not nodes).
        ins: list[torch.Tensor] = []
        for a in args:
            if isinstance(a, _Tensor):
                ins.append(a)
            elif isinstance(a, _CONTAINERS):
                ins.extend(iter_tensors(a))
        if kwargs:
            ins.extend(iter_tensors(kwargs))
        else:
            kwargs = {}
        try:
            versions = [t._version for t in ins]
        except Exception:  # inference tensors have no version counter  # noqa: BLE001
            versions = [_version(t) for t in ins]
        timer = self.timer
        entered = 0 if timer is None else _perf_counter_ns()
        stats = self.stats
        finite_inputs = None if stats is None else stats.inputs(ins)
        try:
            out = func(*args, **kwargs) if timer is None else timer.run(func, args, kwargs)
        except BaseException as exc:
            node = self._record_op(func, args, kwargs, ins, versions, [], [])
            node.error = (type(exc).__name__, _message(exc))
            self.failed_ops[id(exc)] = (exc, node.index)
            raise
        if isinstance(out, _Tensor):
            outs = [out]
        elif isinstance(out, (list, tuple)) and type(out) is not _Size:  # not x.shape, x.size()
            outs = list(iter_tensors(out))
        else:
            outs = []
        mutated = []
        if ins:
            try:
                mutated = [t for t, v in zip(ins, versions) if v != t._version]
            except Exception:  # noqa: BLE001  # as above
                mutated = [t for t, v in zip(ins, versions) if v != -1 and _version(t) != v]
                if -1 in versions:
                    mutated.extend(_written_without_versions(func, args, kwargs, mutated))
        if outs or mutated:
            node = self._record_op(func, args, kwargs, ins, versions, outs, mutated)
            if stats is not None:  # the node's outputs: what it returned, then what it wrote
                stats.outputs(node.index, outs + [t for t in mutated if not any(t is o for o in outs)],
                              finite_inputs)
            if timer is not None:
                timer.ops[node.index] = timer.last
        if timer is not None:  # all but the op's own run was Vista's work
            timer.overhead += _perf_counter_ns() - entered - timer.last
        return out

    def _record_op(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], ins: list[torch.Tensor],
                   versions: list[int], outs: list[torch.Tensor], mutated: list[torch.Tensor]) -> NodeRec:
        name, label = op_names(func)
        # Sources first, so parameter and constant nodes come before the op that reads them.
        # Most inputs were produced by a recorded op and not written since: _source()'s first
        # case, inlined (this runs for every input of every op).
        producers = self.producers
        sources = []
        for t, version in zip(ins, versions):
            entry = producers.get(id(t))
            if entry is not None and entry[3] == version != -1 and entry[0]() is t:
                sources.append((entry[1], entry[2], entry[4]))
            else:
                sources.append(self._source(t, version))
        nodes = self.nodes
        index = len(nodes)
        # The user's line: the frames of _record_op and __torch_function__ are skipped here.
        node = NodeRec(index, "op", name, label, self.stack[-1], self.finder.user_frame(sys._getframe(2)))
        nodes.append(node)
        node.replay = replay_spec(func, args, kwargs)
        positions: dict[int, int] = {}
        edges = self.edges
        for port, (t, (source, source_port, meta)) in enumerate(zip(ins, sources)):
            positions.setdefault(id(t), port)
            edges.append((source, source_port, index, port, meta))

        def tensor_name(t: torch.Tensor) -> str:
            port = positions.get(id(t))
            return "tensor#?" if port is None else _TENSOR_TEXT[port] if port < _TENSOR_TEXTS else f"tensor#{port}"

        arguments = node.arguments
        for a in args:
            if isinstance(a, _Tensor):  # tensor_name(a), inlined: most arguments are tensors
                port = positions[id(a)]
                arguments.append((None, _TENSOR_TEXT[port] if port < _TENSOR_TEXTS else f"tensor#{port}"))
            else:
                arguments.append((None, describe(a, tensor_name)))
        for k, v in kwargs.items():
            arguments.append((k, describe(v, tensor_name)))
        produced = outs
        if mutated:
            produced = outs + [t for t in mutated if not any(t is o for o in outs)]
        outputs = node.outputs
        params = self.params
        storages = self.storages
        ref = weakref.ref
        for port, t in enumerate(produced):
            # tensor_meta(t) and _version(t), inlined (this runs for every output of every op).
            try:
                meta = (t.shape, t.dtype, t.device, t.requires_grad)
            except Exception:  # noqa: BLE001  # as in tensor_meta()
                meta = _odd_meta(t)
            outputs.append(meta)
            # An op that hands back a parameter itself (weight.to(its own dtype)) does not
            # become its producer unless it wrote it: other calls read the parameter, not this op.
            if id(t) not in params or any(t is m for m in mutated):
                try:
                    version = t._version
                except Exception:  # noqa: BLE001  # an inference tensor
                    version = -1
                entry = producers[id(t)] = (ref(t), index, port, version, meta)
                try:
                    storage = t.untyped_storage()
                except Exception:  # noqa: BLE001  # no storage of its own: a torch.func wrapper
                    self._remember_storage(t, entry)
                else:
                    storages[id(storage)] = (ref(storage), entry)
        for t in mutated:
            base = _base(t)
            entry = producers[id(t)]
            version = _version(t)
            self.writers[id(base)] = (weakref.ref(base), index, entry[2], version, entry[4])
            if version == -1:
                key = _storage_key(t)
                if key is not None:
                    self.storage_writers[key] = (weakref.ref(t), index, entry[2], -1, entry[4])
        return node

    # -- tensors -----------------------------------------------------------------------
    def _new_node(self, kind: str, name: str, label: str, call: CallRec, where: Where | None = None) -> NodeRec:
        node = NodeRec(len(self.nodes), kind, name, label, call, where)
        self.nodes.append(node)
        return node

    def register(self, t: torch.Tensor, node: NodeRec, port: int) -> None:
        meta = tensor_meta(t)
        while len(node.outputs) <= port:
            node.outputs.append(meta)
        self.producers.setdefault(id(t), (weakref.ref(t), node.index, port, _version(t), meta))

    def _source(self, t: torch.Tensor, version: int) -> tuple[int, int, Meta]:
        """(node, output port, tensor meta) of whatever last wrote ``t``, which had version
        ``version`` when it was read."""
        entry = self.producers.get(id(t))
        if entry is None or entry[0]() is not t:
            entry = self._source_of_unknown(t, version)
        if version == entry[3] and version != -1:
            return entry[1], entry[2], entry[4]
        # Written since it was produced, through an alias: the last writer of its storage
        # (without version counters, a writer recorded after the producer).
        base = _base(t)
        writer = self.writers.get(id(base))
        if writer is not None and writer[0]() is base and (
            writer[3] > entry[3] if version != -1 else writer[1] > entry[1]
        ):
            return writer[1], writer[2], tensor_meta(t)
        if version == -1 and self.storage_writers:
            # A later write to the same storage (the storage is alive: t holds it, so the
            # address was not reused since t's producer ran).
            writer = self.storage_writers.get(_storage_key(t) or 0)
            if writer is not None and writer[1] > entry[1]:
                return writer[1], writer[2], tensor_meta(t)
        return entry[1], entry[2], entry[4] if version == entry[3] else tensor_meta(t)

    def _source_of_unknown(self, t: torch.Tensor, version: int) -> _Entry:
        """A tensor no recorded op produced (or wrote): a parameter, a buffer or a constant."""
        known = self.params.get(id(t))
        if known is not None and known[1] is t:
            return self._parameter_entry(t, version, known)
        alias = self._unwrapped_source(t) or self._alias_of(t)
        if alias is not None:
            # A new tensor object over an op's output (nn.Parameter(t), t.as_subclass(...), the
            # result of a torch.func transform): that op's data, not a constant.
            entry = (weakref.ref(t), alias[1], alias[2], version, tensor_meta(t))
            self.producers[id(t)] = entry
            return entry
        if isinstance(t, torch.nn.Parameter):
            holder = self._unindexed_holder(t)
            if holder is not None:
                self.named_before_call[id(holder[0])] = self._new_module(*holder, initialised=False)[1]
                known = self.params.get(id(t))
                if known is not None and known[1] is t:
                    return self._parameter_entry(t, version, known)
        node = self._new_node("constant", "constant", "constant", self.stack[-1], self.finder.here())
        node.value = _preview(t)
        meta = tensor_meta(t)
        node.outputs.append(meta)
        entry = (weakref.ref(t), node.index, 0, version, meta)
        self.producers[id(t)] = entry
        self.constants[id(t)] = (entry[0], node)
        return entry

    def _unindexed_holder(self, t: torch.nn.Parameter) -> tuple[torch.nn.Module, CallRec, str] | None:
        """A module the model index does not know that holds parameter ``t`` and is never
        called (made in forward, or held in a plain list): (module, the open call whose code
        holds it, the name it is held by there: a local variable, ``spare.0`` for a list)."""
        def holds(module: torch.nn.Module) -> bool:
            return any(p is t for m in module.modules() for p in m._parameters.values())

        def found(values: Any, call: CallRec) -> tuple[torch.nn.Module, CallRec, str] | None:
            for key, value in values:
                if key == "_modules":  # assigned in forward to an attribute: held by that name
                    key, value = None, value
                elif key in ("_parameters", "_buffers"):
                    continue
                prefix = "" if key is None else f"{key}."
                items = ([(f"{prefix}{i}", v) for i, v in enumerate(value)] if isinstance(value, (list, tuple))
                         else [(f"{prefix}{k}", v) for k, v in value.items()] if isinstance(value, dict)
                         else [(key, value)])
                for name, item in items:
                    if (isinstance(item, torch.nn.Module) and id(item) not in self.module_paths
                            and holds(item)):
                        return item, call, str(name)
            return None

        with _NO_TORCH_FUNCTION():
            # The reading code's frames, out to the innermost call's forward, then the modules
            # of the open calls.
            frame: FrameType | None = sys._getframe(1)
            while frame is not None and frame.f_code is not _CALL_IMPL_CODE:
                if frame.f_code.co_filename != __file__:
                    hit = found(frame.f_locals.items(), self.stack[-1])
                    if hit is not None:
                        return hit
                frame = frame.f_back
            for call in reversed(self.stack):
                hit = found(vars(call.module).items(), call) if call.module is not None else None
                if hit is not None:
                    return hit
        return None

    def _unwrapped_source(self, t: torch.Tensor) -> _Entry | None:
        """The producer of the tensor a torch.func wrapper (torch.vmap's batched tensor, grad's
        wrapper) holds, followed through nested transforms."""
        inner = t
        for _ in range(16):  # transforms nest a few levels deep at most
            try:
                if not _functorch.is_functorch_wrapped_tensor(inner):
                    break
                inner = _functorch.get_unwrapped(inner)
            except Exception:  # noqa: BLE001  # not a functorch tensor after all
                break
            entry = self.producers.get(id(inner))
            if entry is not None and entry[0]() is inner:
                return entry
            known = self.params.get(id(inner))
            if known is not None and known[1] is inner:
                return self._parameter_entry(inner, _version(inner), known)
        return None

    def _remember_storage(self, t: torch.Tensor, entry: _Entry) -> None:
        """Note ``entry`` as the latest op output over ``t``'s storage; for a torch.func
        wrapper (vmap's batched tensor), over the storage of the tensor it wraps, which is what
        the transform hands back in the end."""
        for _ in range(16):  # transforms nest a few levels deep at most
            try:
                storage = t.untyped_storage()
            except Exception:  # noqa: BLE001
                try:
                    if not _functorch.is_functorch_wrapped_tensor(t):
                        return
                    t = _functorch.get_unwrapped(t)
                except Exception:  # noqa: BLE001  # nested, sparse: nothing to share
                    return
                continue
            self.storages[id(storage)] = (weakref.ref(storage), entry)
            return

    def _alias_of(self, t: torch.Tensor) -> _Entry | None:
        """The latest recorded op output over ``t``'s storage, alive or not."""
        try:
            storage = t.untyped_storage()
        except Exception:  # noqa: BLE001  # no storage to compare
            return None
        found = self.storages.get(id(storage))
        return found[1] if found is not None and found[0]() is storage else None

    def _parameter_entry(self, t: torch.Tensor, version: int, known: Known) -> _Entry:
        """The node of a parameter or buffer in the module call reading it: the innermost open
        call that owns it under some name (a module reading its own weight, or passing it to a
        child), else the innermost call (a parent reading a child's weight, a tied head)."""
        writer = self.writers.get(id(t))
        if writer is not None and writer[0]() is t:  # written by a recorded op: data flow
            return writer
        kind, _, names = known
        stack = self.stack
        call = stack[-1]
        named = next((n for n in names if n[1] == call.path), None)
        if named is None:
            for c in reversed(stack):
                named = next((n for n in names if n[1] == c.path), None)
                if named is not None:
                    call = c
                    break
        key = (id(t), call.index)
        entry = self.param_nodes.get(key)
        if entry is None:
            name, _, label = named if named is not None else names[0]
            node = self._new_node(kind, name, label, call)
            meta = tensor_meta(t)
            node.outputs.append(meta)
            entry = self.param_nodes[key] = (weakref.ref(t), node.index, 0, version, meta)
        return entry

    def add_output(self, name: str, value: object) -> None:
        """An output node for one leaf of the model's output."""
        node = self._new_node("output", name, name.rpartition(".")[2] or name, self.root)
        if isinstance(value, torch.Tensor):
            source, port, meta = self._source(value, _version(value))
            self.edges.append((source, port, node.index, 0, meta))
        else:
            node.value = describe(value, _no_tensor)

    def add_input(self, name: str, value: object) -> None:
        node = self._new_node("input", name, name, self.root)
        if isinstance(value, torch.Tensor):
            self.register(value, node, 0)
            with _NO_TORCH_FUNCTION():
                self._flows(value, name, self.input_flows)
        else:
            node.value = describe(value, _no_tensor)

    def add_error_node(self, exc: BaseException, call: CallRec) -> NodeRec:
        """A node for an exception raised by Python code outside any tensor operation."""
        node = self._new_node("error", type(exc).__name__, type(exc).__name__, call,
                              self.finder.from_traceback(exc.__traceback__))
        node.error = (type(exc).__name__, _message(exc))
        return node


def _written_without_versions(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                              known: list[torch.Tensor]) -> list[torch.Tensor]:
    """The tensors an op wrote, for tensors without version counters (made under
    torch.inference_mode): by torch's naming, an in-place op (``add_``, ``__iadd__``,
    ``__setitem__``) writes its first argument, and ``out=`` its tensors."""
    written = []
    name = getattr(func, "__name__", "")
    if args and isinstance(args[0], _Tensor) and (
        (name.endswith("_") and not name.startswith("_")) or name == "__setitem__"
        or (name.startswith("__i") and name.endswith("__"))
    ):
        written.append(args[0])
    out = kwargs.get("out")
    if out is not None:
        written.extend(iter_tensors(out))
    return [t for t in written if _version(t) == -1 and not any(t is k for k in known)]


def _storage_key(t: torch.Tensor) -> int | None:
    """The address of a tensor's storage, or None where there is none to compare (meta,
    nested, sparse and wrapper tensors)."""
    try:
        if t.device.type == "meta":
            return None
        return t.untyped_storage().data_ptr() or None
    except Exception:  # noqa: BLE001
        return None


def _no_tensor(t: torch.Tensor) -> str:
    return "tensor"


def _message(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not break the trace  # noqa: BLE001
        text = f"<{type(exc).__name__}: str() raised>"
    return text if len(text) <= 4000 else text[:3999] + "…"


def _preview(t: torch.Tensor) -> str | None:
    """The values of a small constant tensor, in short form; None for large or meta ones."""
    try:
        if t.device.type == "meta" or t.numel() > CONSTANT_PREVIEW_NUMEL or t.is_sparse:
            return None
        values = t.detach().cpu().reshape(-1).tolist()
    except Exception:  # noqa: BLE001
        return None
    text = ", ".join(repr(v) for v in values)
    return f"[{text}]" if t.dim() else text
