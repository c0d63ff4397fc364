"""The public entry points :func:`trace` and :func:`capture`, and turning records into a Graph."""

from __future__ import annotations

import inspect
import numbers
import platform
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from ._analysis import repeated_blocks, role, signatures
from ._compiled import uncompiled, without_wrappers
from ._cost import add_costs
from ._exceptions import TraceInputError
from ._graph import (
    Argument,
    Attribute,
    CallTensor,
    Graph,
    NodeError,
    Producer,
    RepeatedBlock,
    SharedTensor,
    SourceLocation,
    TensorMeta,
    TraceError,
    make_argument,
    make_attribute,
    make_call_tensor,
    make_edge,
    make_module_call,
    make_node,
    make_parameter_info,
)
from ._lifecycle import Session, interrupts_wait_in
from ._recorder import _CALL_IMPL_CODE, CallRec, Known, Meta, Recorder, meta_text
from ._source import format_traceback, location
from ._stats import StatsRecorder, add_stats
from ._timing import Timer
from ._values import named_leaves, safe_repr, short_text
from ._version import SCHEMA_VERSION, __version__

__all__ = ["Capture", "capture", "trace"]


@dataclass(frozen=True)
class Capture:
    """The outcome of :func:`capture`: the graph, and the model's output or exception.

    ``exception`` is the very object the forward pass raised (``None`` if it returned);
    call :meth:`reraise` after showing the graph to propagate it as usual.
    """

    graph: Graph
    output: Any
    exception: BaseException | None

    def reraise(self) -> None:
        """Raise the forward pass's exception, if there was one."""
        if self.exception is not None:
            raise self.exception


def trace(model: Any, inputs: Any = (), *, kwargs: Mapping[str, Any] | None = None,
          stats: bool = False, timing: bool = False) -> Graph:
    """Run ``model`` on ``inputs`` and return the graph of its forward pass.

    ``inputs`` is a tensor (one positional argument), a tuple or list of positional
    arguments, or a dict of keyword arguments; ``kwargs`` adds keyword arguments
    (``input_ids=...`` for Hugging Face models). Nested tuples, lists and dicts inside are
    fine. A list of nothing but plain numbers is refused (it is almost always meant as
    ``torch.tensor([...])``); pass numbers as positional arguments in a tuple. The model runs
    once, in the caller's grad mode, and its result is unchanged.

    With ``stats=True``, each floating tensor an op produces gets its statistics
    (``TensorMeta.stats``: min, max, mean, std and the counts of NaN, +Inf, -Inf and zeros;
    none on the meta device), and ``Graph.first_nonfinite`` names the first op that produced a
    NaN or infinite value from finite inputs. They cost a few passes over every output.

    With ``timing=True``, each op node and module call gets ``time_us``, its wall time in this
    run with Vista's own recording left out (see the README for how it is measured), and
    :meth:`Graph.summary` shows a time column.

    If the forward pass raises, the original exception propagates unchanged. To get the
    partial graph as well, use :func:`capture`.
    """
    result = capture(model, inputs, kwargs=kwargs, stats=stats, timing=timing)
    result.reraise()
    return result.graph


@interrupts_wait_in
def capture(model: Any, inputs: Any = (), *, kwargs: Mapping[str, Any] | None = None,
            stats: bool = False, timing: bool = False) -> Capture:
    """Like :func:`trace`, but never raises the model's exception: it is returned in the
    :class:`Capture` next to the graph of everything up to the failure, with the failing call
    marked. This includes ``KeyboardInterrupt`` raised inside the forward pass, so a caller
    must call :meth:`Capture.reraise` once it has shown the graph.

    Errors of Vista's own (a bad ``model`` or ``inputs``) raise :class:`TraceInputError`.
    """
    _check_model(model)
    _check_flag("stats", stats)
    _check_flag("timing", timing)
    model = uncompiled(model)
    args, kw = _split_inputs(inputs, kwargs)
    paths, tensors, wrappers = _model_index(model)
    recorder = Recorder(model, paths, tensors, wrappers)
    if stats:
        recorder.stats = StatsRecorder()
    timer = recorder.timer = Timer(recorder.stack, recorder.thread) if timing else None
    output: Any = None
    error: BaseException | None = None
    recorder.finder.boundary = sys._getframe()  # source lines are searched below this frame only
    depth = max((path.count(".") for path in paths.values()), default=-1) + 1
    session = Session(recorder, quiet_wrappers=bool(wrappers), module_depth=depth)
    try:
        session.open()
        session.untraced(_add_inputs, recorder, model, args, kw)
        try:
            session.start()
            try:
                if timer is not None:
                    timer.begin()
                output = model(*args, **kw)
            except BaseException as exc:  # noqa: BLE001  # returned to the caller, who re-raises it
                error = exc
            if timer is not None:
                timer.end()
        finally:
            session.stop()
        graph = session.untraced(_build, recorder, output, error, pause_gc=True)
    finally:
        recorder.finder.boundary = None  # the frame holds the recorder: no cycle is left
        session.close()
    return Capture(graph, output, error)


def _add_inputs(recorder: Recorder, model: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    names = _argument_names(model, len(args))
    for name, value in zip(names, args):
        for leaf_name, leaf in named_leaves(value, name):
            recorder.add_input(leaf_name, leaf)
    for key, value in kw.items():
        for leaf_name, leaf in named_leaves(value, key):
            recorder.add_input(leaf_name, leaf)


# -- checking what the user passed -------------------------------------------------------

def _check_model(model: Any) -> None:
    if isinstance(model, (torch.jit.ScriptModule, torch.jit.ScriptFunction)):
        raise TraceInputError(
            f"Cannot trace the TorchScript object {type(model).__name__!r}: it runs in the "
            "TorchScript interpreter, where Python-level operations cannot be observed. Pass the "
            "original nn.Module (before torch.jit.script / torch.jit.trace) instead."
        )
    if isinstance(model, type):
        raise TraceInputError(
            f"Invalid 'model' argument: the class {model.__qualname__!r}, not an instance of it. "
            f"Create the model first, e.g. model = {model.__name__}(...), and pass model."
        )
    if not isinstance(model, torch.nn.Module) and not callable(model):
        raise TraceInputError(
            f"Invalid 'model' argument: {safe_repr(model)} (type "
            f"{type(model).__name__}). Pass a torch.nn.Module, or a function that takes the "
            "inputs and returns tensors."
        )


def _check_flag(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TraceInputError(f"Invalid {name!r} argument: {safe_repr(value)} (type {type(value).__name__}); "
                              f"pass {name}=True or {name}=False.")


def _split_inputs(inputs: Any, kwargs: Mapping[str, Any] | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if isinstance(inputs, torch.Tensor):
        args: tuple[Any, ...] = (inputs,)
        kw: dict[str, Any] = {}
    elif isinstance(inputs, (tuple, list)):
        _check_not_numbers(inputs)
        args, kw = tuple(inputs), {}
    elif isinstance(inputs, Mapping):
        args, kw = (), dict(inputs)
    else:
        raise TraceInputError(
            f"Invalid 'inputs' argument: {safe_repr(inputs)} (type "
            f"{type(inputs).__name__}). Pass a tensor, a tuple of positional arguments, or a "
            "dict of keyword arguments; wrap any other single argument in a tuple: (value,)."
        )
    if kwargs is not None:
        if not isinstance(kwargs, Mapping):
            raise TraceInputError(
                f"Invalid 'kwargs' argument: {safe_repr(kwargs)} (type "
                f"{type(kwargs).__name__}). Pass a dict of keyword arguments, e.g. "
                "kwargs={'input_ids': ids}."
            )
        for key in kwargs:
            if not isinstance(key, str):
                raise TraceInputError(f"Invalid key in 'kwargs': {safe_repr(key)}; keyword names must be strings.")
            if key in kw:
                raise TraceInputError(f"Keyword argument {key!r} is given both in 'inputs' and in 'kwargs'.")
        kw.update(kwargs)
    for key in kw:
        if not isinstance(key, str):
            raise TraceInputError(f"Invalid key in 'inputs': {safe_repr(key)}; keyword names must be strings.")
    return args, kw


def _check_not_numbers(inputs: tuple[Any, ...] | list[Any]) -> None:
    """A list of plain numbers is almost always meant as one tensor; spread into positional
    arguments it ends in the model's own ``takes 2 positional arguments but 4 were given``.
    A tuple stays the explicit way to pass numbers as separate positional arguments."""
    if not isinstance(inputs, list) or not inputs:
        return
    count, nested, pending = 0, False, list(inputs)
    while pending:  # a loop, not recursion: the list may be nested arbitrarily deep
        value = pending.pop()
        if isinstance(value, list):
            nested = True
            pending.extend(value)
        elif isinstance(value, numbers.Number) and not isinstance(value, torch.Tensor):
            count += 1
        else:
            return
    if count == 0:
        return
    text = safe_repr(inputs)
    literal = text if len(text) <= 60 and not text.endswith("…") else "numbers"
    kind = "a nested list" if nested else "a list"
    plural = "number" if count == 1 else "numbers"
    arguments = "1 separate argument" if len(inputs) == 1 else f"{len(inputs)} separate arguments"
    raise TraceInputError(
        f"Invalid 'inputs' argument: {text}, {kind} of {count} plain {plural}. A list is taken as "
        f"positional arguments, so the model would get {arguments}. To pass "
        f"the numbers as one tensor, use inputs=torch.tensor({literal}); to pass them as separate "
        f"positional arguments, use a tuple: {safe_repr(tuple(inputs))}."
    )


def _forward_of(model: Any) -> Any:
    return model.forward if isinstance(model, torch.nn.Module) else model


def _argument_names(model: Any, count: int) -> list[str]:
    """Names of the first ``count`` positional parameters of the model's forward."""
    names: list[str] = []
    try:
        params = list(inspect.signature(_forward_of(model)).parameters.values())
    except (TypeError, ValueError):
        params = []
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            names.extend(f"{p.name}[{i}]" for i in range(count - len(names)))
            break
    names.extend(f"args[{i}]" for i in range(len(names), count))
    return names[:count]


def _model_index(model: Any) -> tuple[dict[int, str], dict[int, Known], set[int]]:
    """The model's module paths by module id; its parameters and buffers by tensor id as
    (kind, tensor, every (qualified name, owner's path, own name) of it), in one walk of its
    modules (the first path of a shared module or tensor comes first, as in named_modules and
    named_parameters); and the ids of the torch.compile wrappers inside it. Those wrappers are
    left out of the graph, and the module each holds takes the wrapper's path (``encoder``, not
    ``encoder._orig_mod``), the name the model's code calls it by."""
    paths: dict[int, str] = {}
    tensors: dict[int, Known] = {}
    wrappers: set[int] = set()
    if isinstance(model, torch.nn.Module):
        modules, wrappers = without_wrappers(named_modules(model))
        for path, module in modules:
            paths.setdefault(id(module), path)
        names: dict[int, list[tuple[str, str, str]]] = {}
        for attribute, kind in (("_parameters", "parameter"), ("_buffers", "buffer")):
            for path, module in modules:
                prefix = path + "." if path else ""
                for name, t in getattr(module, attribute).items():
                    if t is None:
                        continue
                    if id(t) not in tensors:
                        tensors[id(t)] = (kind, t, ())
                        names[id(t)] = []
                    names[id(t)].append((prefix + name, path, name))
        for key, (kind, t, _) in tensors.items():
            tensors[key] = (kind, t, tuple(names[key]))
    return paths, tensors, wrappers


# -- records to document -----------------------------------------------------------------

class _Tensors:
    """Turns recorded metas into document records, once per recorded meta object: a
    producer's meta tuple is shared by its edges, so most lookups are by identity."""

    def __init__(self) -> None:
        self.by_id: dict[int, TensorMeta] = {}
        self._by_value: dict[tuple[Any, ...], TensorMeta] = {}

    def one(self, meta: Meta) -> TensorMeta:
        found = self.by_id.get(id(meta))
        if found is None:
            key = (tuple(meta[0]), meta[1], meta[2], meta[3])
            found = self._by_value.get(key)
            if found is None:
                dtype, device = meta_text(meta[1], meta[2])
                found = self._by_value[key] = TensorMeta(shape=tuple(int(d) for d in meta[0]), dtype=dtype,
                                                         device=device, requires_grad=bool(meta[3]))
            self.by_id[id(meta)] = found
        return found

    def many(self, metas: list[Meta]) -> tuple[TensorMeta, ...]:
        return tuple(map(self.one, metas))


def named_modules(root: torch.nn.Module) -> list[tuple[str, torch.nn.Module]]:
    """``root.named_modules(remove_duplicate=False)`` as a list, in the same order, without its
    recursion: its generators nest one level per module depth, so a 10,000-deep model costs
    quadratic time there and needs a recursion limit above its depth. A module that contains
    itself is refused with an error naming the loop (torch's walk would never end)."""
    found: list[tuple[str, torch.nn.Module]] = []
    on_path: dict[int, str] = {}
    stack: list[tuple[str, torch.nn.Module | None]] = [("", root)]
    while stack:
        path, module = stack.pop()
        if module is None:  # leaving the module at ``path``
            del on_path[id(stack.pop()[1])]
            continue
        if id(module) in on_path:
            raise TraceInputError(
                f"Invalid 'model' argument: the module at {on_path[id(module)] or '(the model)'!r} contains "
                f"itself, as {path!r}; a model's modules must form a tree (or a graph without loops).")
        found.append((path, module))
        on_path[id(module)] = path
        stack.append((path, module))
        stack.append((path, None))
        prefix = path + "." if path else ""
        children = [(prefix + name, child) for name, child in module._modules.items() if child is not None]
        stack.extend(reversed(children))
    return found


def _numel(t: torch.Tensor) -> int:
    return t.numel()


def _nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _parameter_totals(root: torch.nn.Module, tables: tuple[str, ...] = ("_parameters",),
                      size: Callable[[torch.Tensor], int] = _numel) -> dict[int, int]:
    """{id(module): parameters in it and below it, each tensor counted once} for ``root`` and
    every module under it, in time linear in the module tree: a parameter with a single
    qualified name counts in each module above its owner through plain sums; only tensors with
    several names (tied or in a shared module) are kept as sets, up to where they meet.
    ``tables`` and ``size`` say what is counted: by default parameters, by their numel."""
    order = named_modules(root)
    names: dict[int, int] = {}
    numels: dict[int, int] = {}
    last: dict[int, tuple[int, torch.nn.Module]] = {}
    for index, (_, module) in enumerate(order):
        last[id(module)] = (index, module)
        for table in tables:
            for p in getattr(module, table).values():
                if p is not None:
                    names[id(p)] = names.get(id(p), 0) + 1
                    if id(p) not in numels:
                        numels[id(p)] = size(p)
    # Every child's last appearance comes after its parent's: children are done first.
    unique: dict[int, int] = {}
    shared: dict[int, tuple[frozenset[int], int]] = {}
    none: tuple[frozenset[int], int] = (frozenset(), 0)
    totals: dict[int, int] = {}
    for _, module in sorted(last.values(), key=lambda item: -item[0]):
        count = 0
        own: set[int] = set()
        for table in tables:
            for p in getattr(module, table).values():
                if p is not None:
                    if names[id(p)] == 1:
                        count += numels[id(p)]
                    else:
                        own.add(id(p))
        tied = (frozenset(own), sum(numels[i] for i in own)) if own else none
        for child in module._modules.values():
            if child is not None:
                count += unique[id(child)]
                below = shared[id(child)]
                if below[0] and below[0] is not tied[0]:
                    if not tied[0]:
                        tied = below
                    elif not below[0] <= tied[0]:
                        merged = tied[0] | below[0]
                        tied = (merged, sum(numels[i] for i in merged))
        unique[id(module)] = count
        shared[id(module)] = tied
        totals[id(module)] = count + tied[1]
    return totals


def _parameter_ids(module: torch.nn.Module, memo: dict[int, dict[int, int]]) -> dict[int, int]:
    """{id(parameter): numel} of a module and its children, computed once per module."""
    found = memo.get(id(module))
    if found is None:
        found = {id(p): p.numel() for p in module._parameters.values() if p is not None}
        for child in module._modules.values():
            if child is not None:
                found.update(_parameter_ids(child, memo))
        memo[id(module)] = found
    return found


def _dtype_text(dtype: Any) -> str:
    return meta_text(dtype, None)[0]


_SCALARS = (bool, int, float, str)
_MAX_ATTRIBUTES = 32


def _public_attributes(module: torch.nn.Module) -> tuple[Attribute, ...]:
    """The public scalar attributes `module` set on itself, in the order it set them: where a
    Hugging Face layer keeps its config (num_attention_heads, head_dim), which its empty
    extra_repr does not show."""
    found = []
    for name, value in vars(module).items():
        # None and "" are settings left unset (HF's name_or_path, kernel_config): nothing to say.
        if name.startswith("_") or name == "training" or type(value) not in _SCALARS or value is None or value == "":
            continue
        found.append(make_attribute(name, safe_repr(value, 80)))
        if len(found) == _MAX_ATTRIBUTES:
            break
    return tuple(found)


def _module_info(module: Any, memo: dict[int, dict[int, int]], totals: dict[int, int]) -> tuple[Any, ...]:
    """(class name, qualified class name, parameters in all, own parameters, own parameter
    records, extra_repr, public attributes) of a module, or of a plain function traced as the model."""
    cls = type(module)
    if isinstance(module, torch.nn.Module):
        class_name, class_qualname = cls.__name__, f"{cls.__module__}.{cls.__qualname__}"
        total = totals.get(id(module))
        if total is None:  # a module outside the model's tree (made in forward)
            total = sum(_parameter_ids(module, memo).values())
        # The module's own dicts, as named_parameters(recurse=False) and named_buffers(recurse=False)
        # read them (without their generator machinery: this runs once per module call).
        params = []
        own = 0
        for n, p in module._parameters.items():
            if p is not None:
                numel = p.numel()
                own += numel
                params.append(make_parameter_info(n, "parameter", tuple(p.shape), _dtype_text(p.dtype), numel,
                                                  p.requires_grad))
        for n, b in module._buffers.items():
            if b is not None:
                params.append(make_parameter_info(n, "buffer", tuple(b.shape), _dtype_text(b.dtype), b.numel(), False))
        try:
            extra = short_text(str(module.extra_repr()), 300)
        except Exception as exc:  # a model's own extra_repr may be broken  # noqa: BLE001
            extra = f"<extra_repr() raised {type(exc).__name__}>"
        attributes = _public_attributes(module) if extra == "" else ()
    else:
        name = getattr(module, "__qualname__", None) or getattr(module, "__name__", None) or cls.__name__
        class_name, class_qualname = str(name), f"{getattr(module, '__module__', None) or ''}.{name}".lstrip(".")
        total = own = 0
        params, extra, attributes = [], "", ()
    return class_name, class_qualname, total, own, tuple(params), extra, attributes


def _build(rec: Recorder, output: Any, error: BaseException | None) -> Graph:
    if error is None:
        prefix = "" if isinstance(output, Mapping) else "output"
        for name, leaf in named_leaves(output, prefix):
            if leaf is not None:
                rec.add_output(name or "output", leaf)
    failed_node: int | None = None
    if error is not None:
        for call in rec.stack:  # calls still open were left by the exception
            call.failed = True
        rec.root.failed = True
        found = rec.failed_ops.get(id(error))
        if found is not None and found[0] is error:
            failed_node = found[1]
        else:
            call = _raising_call(rec, error)
            call.failed = True
            failed_node = rec.add_error_node(error, call).index
            # What the call received comes into its failure: the shapes that made it raise.
            received = rec.input_flows if call is rec.root else call.inputs
            for port, (name, source, source_port, meta) in enumerate(received):
                rec.edges.append((source, source_port, failed_node, port, meta))
                rec.nodes[failed_node].arguments.append((name, f"tensor#{port}"))

    # Records shared between nodes are made once: tensor metas, source locations, argument
    # lists, and the information of a module called several times.
    places: dict[tuple[str, int, str], SourceLocation] = {}
    tensors = _Tensors()  # the records hold every meta alive, so ids stay unique meanwhile
    argument_lists: dict[tuple[tuple[str | None, str], ...], tuple[Argument, ...]] = {}
    infos: dict[int, tuple[Any, ...]] = {}
    memo: dict[int, dict[int, int]] = {}
    totals = _parameter_totals(rec.root.module) if isinstance(rec.root.module, torch.nn.Module) else {}
    call_infos = []
    for c in rec.calls:
        info = infos.get(id(c.module))
        if info is None:
            info = infos[id(c.module)] = _module_info(c.module, memo, totals)
        call_infos.append(info)
    parents = [None if c.parent is None else c.parent.index for c in rec.calls]
    # Record ids ("m3", "n17"), made once: edges and nodes refer to them many times.
    call_ids = [f"m{i}" for i in range(len(rec.calls))]
    node_ids = [f"n{i}" for i in range(len(rec.nodes))]
    node_calls = [n.call.index for n in rec.nodes]
    node_keys = [_node_key(n) for n in rec.nodes]
    wiring = [(e[0], e[1], e[2], e[3]) for e in rec.edges]
    sigs = signatures(parents, [info[1] for info in call_infos], node_calls, node_keys, wiring)
    blocks = repeated_blocks(parents, node_calls, wiring, sigs, [role(c.path) for c in rec.calls], node_keys)

    def flows(items: list[tuple[str, int, int, Meta]]) -> tuple[CallTensor, ...]:
        return tuple(make_call_tensor(name, node_ids[source], port, tensors.one(meta))
                     for name, source, port, meta in items)

    modules = tuple(
        make_module_call(
            call_ids[c.index],  # id
            None if c.parent is None else call_ids[c.parent.index],  # parent
            c.path,
            c.path.rpartition(".")[2],  # name
            info[0],  # class_name
            info[1],  # class_qualname
            c.call_index,
            info[2],  # num_params
            info[3],  # num_params_own
            sigs[c.index],  # signature
            info[4],  # parameters
            info[5],  # extra_repr
            c.failed,
            # The root's call site (the line calling trace()) would make documents differ
            # with where trace() was called from; it carries no information about the model.
            None if c.parent is None else location(c.where, places),  # source
            flows(c.inputs),
            flows(c.outputs),
            attributes=info[6],
        )
        for c, info in zip(rec.calls, call_infos)
    )

    def arguments(pairs: list[tuple[str | None, str]]) -> tuple[Argument, ...]:
        key = tuple(pairs)
        found = argument_lists.get(key)
        if found is None:
            found = argument_lists[key] = tuple(make_argument(k, v) for k, v in pairs)
        return found

    nodes = tuple(
        make_node(
            node_ids[n.index],
            n.kind,  # type: ignore[arg-type]  # NodeRec.kind holds a NodeKind value
            n.name,
            n.label,
            call_ids[n.call.index],
            tensors.many(n.outputs),
            arguments(n.arguments) if n.arguments else (),
            location(n.where, places),
            n.value,
            None if n.error is None else NodeError(type=n.error[0], message=n.error[1]),
        )
        for n in rec.nodes
    )
    owned = (_parameter_totals(rec.root.module, ("_parameters", "_buffers"), _nbytes)
             if isinstance(rec.root.module, torch.nn.Module) else {})
    add_costs(nodes, modules, [c.module for c in rec.calls], parents, [n.replay for n in rec.nodes], owned)
    first_nonfinite = None if rec.stats is None else add_stats(nodes, rec.stats)
    if rec.timer is not None:
        rec.timer.add_times(nodes, modules)
    # Most edges carry their producer's meta object, which the nodes above have turned into a
    # record already: tensors.one()'s first lookup, inlined (this runs for every edge).
    one, meta_by_id = tensors.one, tensors.by_id
    edges = tuple([make_edge(node_ids[s], sp, node_ids[t], tp, meta_by_id.get(id(m)) or one(m))
                   for s, sp, t, tp, m in rec.edges])
    trace_error = None
    if error is not None:
        cls = type(error)
        node_error = None if failed_node is None else rec.nodes[failed_node].error
        trace_error = TraceError(
            type=cls.__name__,
            qualname=f"{cls.__module__}.{cls.__qualname__}",
            message=node_error[1] if node_error is not None else "",
            traceback=format_traceback(error),
            node=None if failed_node is None else f"n{failed_node}",
        )
    return Graph(
        schema_version=SCHEMA_VERSION,
        producer=Producer(name="vista-core", version=__version__, torch=torch.__version__,
                          python=platform.python_version()),
        modules=modules,
        nodes=nodes,
        edges=edges,
        repeated_blocks=tuple(
            RepeatedBlock(parent=f"m{p}", modules=tuple(f"m{c}" for c in run), signature=sigs[run[0]],
                          glue=tuple(node_ids[n] for n in glue), glue_modules=tuple(f"m{c}" for c in glue_calls))
            for p, run, glue, glue_calls in blocks
        ),
        shared_tensors=_shared_tensors(rec, node_ids),
        error=trace_error,
        first_nonfinite_id=first_nonfinite,
    )


def _shared_tensors(rec: Recorder, node_ids: list[str]) -> tuple[SharedTensor, ...]:
    """The parameters and buffers read in more than one module call, or known by more than one
    name (tied weights), with all their nodes, in the order of their first node."""
    nodes: dict[int, list[int]] = {}
    for (tensor, _call), entry in rec.param_nodes.items():
        nodes.setdefault(tensor, []).append(entry[1])
    shared = []
    for tensor, indices in nodes.items():
        kind, _, names = rec.params[tensor]
        if len(indices) > 1 or len(names) > 1:
            indices.sort()
            shared.append((indices[0], SharedTensor(
                name=names[0][0], kind=kind,  # type: ignore[arg-type]  # Known holds a kind
                names=tuple(n[0] for n in names), nodes=tuple(node_ids[i] for i in indices))))
    shared.sort(key=lambda pair: pair[0])
    return tuple(s for _, s in shared)


def _raising_call(rec: Recorder, error: BaseException) -> CallRec:
    """The module call an exception raised outside any op came out of: the innermost module
    call frame in its traceback (this also finds a module's own forward hook that raised after
    the call's forward returned), else the innermost call that was left by it."""
    module = None
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _CALL_IMPL_CODE:
            module = tb.tb_frame.f_locals.get("self", module)
        tb = tb.tb_next
    if module is not None:
        for call in reversed(rec.calls):
            if call.module is module:
                return call
    left = rec.first_failed_call.get(id(error))
    return left[1] if left is not None and left[0] is error else rec.stack[-1]



def _node_key(node: Any) -> tuple[Any, ...]:
    """What makes two nodes alike for signatures (names of parameters and inputs left out)."""
    shapes = tuple((m[0], m[1]) for m in node.outputs)
    if node.kind == "op":
        return ("op", node.name, tuple(node.arguments), shapes)
    if node.kind in ("parameter", "buffer"):
        return (node.kind, node.label, shapes)
    return (node.kind, shapes)
