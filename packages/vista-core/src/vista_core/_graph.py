"""The graph document: typed records, JSON round trip, and strict reading.

A :class:`Graph` is what :func:`vista_core.trace` returns and what renderers read. Its JSON form
is described by vista-schema's ``schema/v1/graph.schema.json``; fields that hold their default value are left
out of the JSON, and reading fills them in again.

A document of a newer minor version (same major) may hold fields this reader does not know:
minor versions only add optional fields, so each record keeps them as they were read and writes
them back, and nothing else looks at them. Documents of this reader's own minor (or older) are
read strictly: an unknown field is an error.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import sys
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from vista_schema import SchemaError, check_finite, check_schema_version, parse_json

_new = object.__new__
_setattr = object.__setattr__

__all__ = [
    "Argument",
    "CallTensor",
    "Deferred",
    "Edge",
    "Graph",
    "ModuleCall",
    "Node",
    "NodeError",
    "NodeKind",
    "ParameterInfo",
    "Producer",
    "RepeatedBlock",
    "SharedTensor",
    "SourceLocation",
    "TensorMeta",
    "TensorStats",
    "TraceError",
]

NodeKind = Literal["input", "output", "parameter", "buffer", "constant", "op", "error"]


@dataclass(frozen=True)
class TensorStats:
    """Values of a floating tensor an op produced (schema 1.1, with ``stats=True``).

    ``min``, ``max``, ``mean`` and ``std`` (``torch.std``'s, with Bessel's correction) are of
    its finite elements, None when it has none (an empty tensor, or all NaN or infinite) and
    ``std`` also for a single one; ``nan``, ``posinf``, ``neginf`` and ``zeros`` count elements.
    """

    min: float | None
    max: float | None
    mean: float | None
    std: float | None
    nan: int
    posinf: int
    neginf: int
    zeros: int

    @property
    def finite(self) -> bool:
        """True when no element is NaN or infinite."""
        return self.nan == self.posinf == self.neginf == 0


@dataclass(frozen=True)
class TensorMeta:
    """Shape, dtype and device of one tensor, as seen where it was produced or consumed.

    ``stats`` (schema 1.1) is set on the outputs of op nodes when traced with ``stats=True``,
    for floating tensors off the meta device.
    """

    shape: tuple[int, ...]
    dtype: str
    device: str
    requires_grad: bool = False
    stats: TensorStats | None = None


@dataclass(frozen=True)
class SourceLocation:
    """Where in the user's code a call happened: the innermost frame outside torch."""

    file: str
    line: int
    function: str
    code: str = ""


@dataclass(frozen=True)
class Attribute:
    """A public scalar attribute a module set on itself (``num_attention_heads``: ``2``), as its
    repr. Recorded for modules whose ``extra_repr()`` is empty, as Hugging Face layers' are,
    which keep their config this way. Schema 1.1."""

    name: str
    value: str


@dataclass(frozen=True)
class Argument:
    """One argument of an op call in short readable form; ``name`` is None when positional.

    Tensor arguments read ``"tensor#k"``, where ``k`` is the ``target_input`` of the edge
    that brings that tensor in.
    """

    name: str | None
    value: str


@dataclass(frozen=True)
class NodeError:
    """The exception a failed call raised."""

    type: str
    message: str


@dataclass(frozen=True)
class Node:
    """One vertex of the graph: a tensor operation, or a tensor entering or leaving the model.

    ``kind`` is one of ``input``, ``output``, ``parameter``, ``buffer``, ``constant``, ``op``
    and ``error`` (a failure raised by Python code outside any tensor operation). ``outputs``
    lists the tensors the node produced, indexed by ``Edge.source_output``.
    """

    id: str
    kind: NodeKind
    name: str
    label: str
    module: str
    outputs: tuple[TensorMeta, ...] = ()
    arguments: tuple[Argument, ...] = ()
    source: SourceLocation | None = None
    value: str | None = None
    error: NodeError | None = None
    #: Op nodes: bytes of the tensors it produced (shape × element size); parameter and buffer
    #: nodes: bytes of the tensor. Schema 1.1; None in 1.0 documents.
    bytes: int | None = None
    #: Op nodes: FLOPs by torch's own formulas (``torch.utils.flop_counter``); None where torch
    #: has none for the op. Schema 1.1.
    flops: int | None = None
    #: Op nodes: measured wall time in microseconds, with ``timing=True``. Schema 1.1.
    time_us: float | None = None


@dataclass(frozen=True)
class Edge:
    """A tensor flowing from output ``source_output`` of one node to input ``target_input`` of
    another. ``tensor`` describes it as the consumer saw it."""

    source: str
    source_output: int
    target: str
    target_input: int
    tensor: TensorMeta


@dataclass(frozen=True)
class ParameterInfo:
    """A parameter or buffer owned directly by a module."""

    name: str
    kind: Literal["parameter", "buffer"]
    shape: tuple[int, ...]
    dtype: str
    numel: int
    requires_grad: bool = False


@dataclass(frozen=True)
class CallTensor:
    """A tensor a module call received (``name``: its parameter's name, e.g. ``x`` or
    ``attention_mask``; nested ones like ``args[1][0]``) or returned (``output``,
    ``output[0]``, ``output['logits']``), and the node output it came from: an input may
    come from outside the call, an output from inside it, or straight from its input when the
    call returns an input unchanged."""

    name: str
    source: str
    source_output: int
    tensor: TensorMeta


@dataclass(frozen=True)
class ModuleCall:
    """One call of one module. A module called three times gives three calls sharing a
    ``path``, told apart by ``call_index``. The root call (the model itself) has no parent.

    ``inputs`` and ``outputs`` are the tensors it received and returned (the root call's are
    the input and output nodes instead). ``signature`` is equal for two calls exactly when their contents have the same
    structure (classes, ops, shapes and wiring), so renderers can fold and reuse them.
    """

    id: str
    parent: str | None
    path: str
    name: str
    class_name: str
    class_qualname: str
    call_index: int
    num_params: int
    num_params_own: int
    signature: str
    parameters: tuple[ParameterInfo, ...] = ()
    extra_repr: str = ""
    failed: bool = False
    source: SourceLocation | None = None
    inputs: tuple[CallTensor, ...] = ()
    outputs: tuple[CallTensor, ...] = ()
    #: Activation bytes: the ``bytes`` of the op nodes of the call and of every call inside it.
    #: Schema 1.1; None in 1.0 documents.
    bytes: int | None = None
    #: Bytes of the parameters and buffers the module and its children own, shared ones once.
    #: Schema 1.1; None in 1.0 documents.
    param_bytes: int | None = None
    #: FLOPs of the op nodes of the call and of every call inside it (ops without a formula
    #: count 0, as ``FlopCounterMode`` counts them). Schema 1.1; None in 1.0 documents.
    flops: int | None = None
    #: Measured wall time of the call in microseconds, with ``timing=True``. Schema 1.1.
    time_us: float | None = None
    #: Public scalar attributes, for a module whose ``extra_repr`` is empty. Schema 1.1.
    attributes: tuple[Attribute, ...] = ()


class Deferred:
    """The value of a record field that is computed when first read: ``resolve()`` puts the
    real values into every record holding this object. By default fields hold their values;
    the tracer defers the FLOPs (``Node.flops``, ``ModuleCall.flops``: see ``_cost.py``), so a
    trace does not pay for them until someone reads them or the document."""

    __slots__ = ("resolve",)

    def __init__(self, resolve: Callable[[], None]) -> None:
        self.resolve = resolve


class _DeferredField:
    """A data descriptor for a dataclass field that may hold a :class:`Deferred`."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, record: object, owner: type | None = None) -> Any:
        if record is None:
            return None  # the field's default, as the dataclass had it
        value = record.__dict__[self.name]
        if type(value) is Deferred:
            value.resolve()
            value = record.__dict__[self.name]
        return value

    def __set__(self, record: object, value: object) -> None:
        record.__dict__[self.name] = value


def _resolved_state(record: object) -> dict[str, Any]:
    """``__getstate__`` of records with deferred fields: copies and pickles hold values."""
    state: dict[str, Any] = record.__dict__
    for value in list(state.values()):
        if type(value) is Deferred:
            value.resolve()
    return state


for _record in (Node, ModuleCall):
    _record.flops = _DeferredField("flops")  # type: ignore[assignment]  # a descriptor in the field's place
    _record.__getstate__ = _resolved_state  # type: ignore[method-assign, assignment]


@dataclass(frozen=True)
class RepeatedBlock:
    """Consecutive sibling calls that are the same block of the model (one container's
    numbered children, such as a transformer's 24 layers, or one module called repeatedly),
    with the same signature, each feeding the next. ``glue`` lists the parent's own nodes
    after each call (a residual add, a norm, a cast), alike after every call of the run (after
    the last one only when the same glue follows it), and ``glue_modules`` (since 1.1) the
    parent's other child calls among them (a norm module). Renderers may fold the calls and
    their glue into one box."""

    parent: str
    modules: tuple[str, ...]
    signature: str
    glue: tuple[str, ...] = ()
    glue_modules: tuple[str, ...] = ()


@dataclass(frozen=True)
class SharedTensor:
    """A parameter or buffer that more than one module call reads, or that the model holds
    under more than one name (tied weights, such as T5's embedding and LM head). Each call that
    reads it has a node of its own (``nodes``, in execution order), so the tensor never shows
    as data flowing from one call into another; ``names`` lists every qualified name it has in
    the model, ``name`` (the first) as ``named_parameters()`` gives it."""

    name: str
    kind: Literal["parameter", "buffer"]
    names: tuple[str, ...]
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class TraceError:
    """Why the traced forward pass failed. ``node`` is the failed node's id."""

    type: str
    qualname: str
    message: str
    traceback: str
    node: str | None = None


@dataclass(frozen=True)
class Producer:
    """The software that wrote the document."""

    name: str
    version: str
    torch: str
    python: str


@dataclass(frozen=True)
class Graph:
    """A traced forward pass: module calls, nodes, edges and, if it failed, the error."""

    schema_version: str
    producer: Producer
    modules: tuple[ModuleCall, ...]
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    repeated_blocks: tuple[RepeatedBlock, ...] = ()
    shared_tensors: tuple[SharedTensor, ...] = ()
    error: TraceError | None = None
    #: The id of the first op that produced a NaN or infinite value from finite inputs (traced
    #: with ``stats=True``); the document's ``first_nonfinite``. Schema 1.1.
    first_nonfinite_id: str | None = dataclasses.field(
        default=None, metadata={"json": "first_nonfinite", "nullable": True})

    # -- convenience -------------------------------------------------------------------
    @property
    def root(self) -> ModuleCall:
        """The call of the model itself."""
        return self.modules[0]

    @property
    def failed(self) -> bool:
        """True when the forward pass raised."""
        return self.error is not None

    @property
    def first_nonfinite(self) -> Node | None:
        """The first op node that produced a NaN or infinite value from finite inputs (traced
        with ``stats=True``); None when there is none or stats were not recorded."""
        return None if self.first_nonfinite_id is None else self.node(self.first_nonfinite_id)

    def node(self, node_id: str) -> Node:
        """The node with id ``node_id``."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(f"No node with id {node_id!r} in this graph")

    def ops(self) -> Iterator[Node]:
        """The operation nodes, in execution order."""
        return (n for n in self.nodes if n.kind == "op")

    def summary(self, depth: int = 3) -> str:
        """A text table of the module calls down to ``depth`` levels below the model (like
        torchinfo's): name and class, output shapes, parameters (in all, shared ones once),
        FLOPs and activation bytes of each call's subtree, then the totals."""
        from ._summary import summary

        return summary(self, depth)

    # -- serialisation -----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The document as plain JSON-compatible data (fields at their default left out)."""
        result = _to_data(self)
        assert isinstance(result, dict)
        return result

    def to_json(self, *, indent: int | None = None) -> str:
        """The document as JSON text. The same graph always gives the same bytes."""
        separators = (",", ":") if indent is None else (",", ": ")
        # ASCII with \u escapes: strings from the model may hold lone surrogates (file names
        # decoded with surrogateescape), which have no UTF-8 encoding but do have an escape.
        return json.dumps(_to_data(self, {}), indent=indent, separators=separators, ensure_ascii=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Graph:
        """Read a document, checking its schema version, every field's type, and that every
        id it refers to exists. Raises :class:`SchemaError` (or :class:`SchemaVersionError`)
        naming the offending place."""
        if not isinstance(data, Mapping):
            raise SchemaError(
                f"A graph document must be a JSON object, got {type(data).__name__}: "
                f"{_short(data)}"
            )
        newer_minor = check_schema_version(data.get("schema_version"))
        graph = _from_data(cls, data, "$", newer_minor)
        assert isinstance(graph, Graph)
        graph._check_references()
        return graph

    @classmethod
    def from_json(cls, text: str | bytes | bytearray) -> Graph:
        """Parse and read a JSON document (text, or UTF-8 bytes); see :meth:`from_dict`."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise SchemaError(
                f"Graph.from_json() takes JSON text (str or bytes), got "
                f"{type(text).__name__}: {_short(text)}. For a dict, use Graph.from_dict()."
            )
        return cls.from_dict(parse_json(text))

    def _check_references(self) -> None:
        modules = {m.id for m in self.modules}
        parent_of = {m.id: m.parent for m in self.modules}
        nodes = {n.id: n for n in self.nodes}
        if len(modules) != len(self.modules):
            raise SchemaError("Graph document has duplicate module ids")
        if len(nodes) != len(self.nodes):
            raise SchemaError("Graph document has duplicate node ids")
        if not self.modules or self.modules[0].parent is not None:
            raise SchemaError("Graph document must start with the root module call (parent null)")
        for i, m in enumerate(self.modules[1:], 1):
            if m.parent not in modules:
                raise SchemaError(f"$.modules[{i}].parent refers to unknown module {m.parent!r}")
        for i, m in enumerate(self.modules):
            for field in ("inputs", "outputs"):
                for j, t in enumerate(getattr(m, field)):
                    node = nodes.get(t.source)
                    if node is None:
                        raise SchemaError(f"$.modules[{i}].{field}[{j}] refers to unknown node {t.source!r}")
                    if t.source_output >= len(node.outputs):
                        raise SchemaError(
                            f"$.modules[{i}].{field}[{j}].source_output {t.source_output} is out of range for "
                            f"node {t.source!r} with {len(node.outputs)} outputs"
                        )
        for i, n in enumerate(self.nodes):
            if n.module not in modules:
                raise SchemaError(f"$.nodes[{i}].module refers to unknown module {n.module!r}")
        for i, e in enumerate(self.edges):
            for end, port in ((e.source, e.source_output), (e.target, e.target_input)):
                if end not in nodes:
                    raise SchemaError(f"$.edges[{i}] refers to unknown node {end!r}")
                if port < 0:
                    raise SchemaError(f"$.edges[{i}] has a negative port {port}")
            if e.source_output >= len(nodes[e.source].outputs):
                raise SchemaError(
                    f"$.edges[{i}].source_output {e.source_output} is out of range for node "
                    f"{e.source!r} with {len(nodes[e.source].outputs)} outputs"
                )
        for i, b in enumerate(self.repeated_blocks):
            if len(b.modules) < 2:
                raise SchemaError(f"$.repeated_blocks[{i}].modules must list at least 2 module calls")
            for ref in (b.parent, *b.modules):
                if ref not in modules:
                    raise SchemaError(f"$.repeated_blocks[{i}] refers to unknown module {ref!r}")
            for ref in b.glue:
                if ref not in nodes:
                    raise SchemaError(f"$.repeated_blocks[{i}].glue refers to unknown node {ref!r}")
                if nodes[ref].module != b.parent:
                    raise SchemaError(
                        f"$.repeated_blocks[{i}].glue lists node {ref!r} of module {nodes[ref].module!r}, "
                        f"not of the run's parent {b.parent!r}"
                    )
            for ref in b.glue_modules:
                if ref not in modules:
                    raise SchemaError(f"$.repeated_blocks[{i}].glue_modules refers to unknown module {ref!r}")
                if parent_of[ref] != b.parent:
                    raise SchemaError(
                        f"$.repeated_blocks[{i}].glue_modules lists module {ref!r}, not a child of the run's "
                        f"parent {b.parent!r}"
                    )
        for i, s in enumerate(self.shared_tensors):
            if not s.nodes or not s.names:
                raise SchemaError(f"$.shared_tensors[{i}] must list at least one node and one name")
            for ref in s.nodes:
                if ref not in nodes:
                    raise SchemaError(f"$.shared_tensors[{i}] refers to unknown node {ref!r}")
                if nodes[ref].kind != s.kind:
                    raise SchemaError(
                        f"$.shared_tensors[{i}] lists node {ref!r} of kind {nodes[ref].kind!r} "
                        f"for a shared {s.kind}"
                    )
        if self.error is not None and self.error.node is not None and self.error.node not in nodes:
            raise SchemaError(f"$.error.node refers to unknown node {self.error.node!r}")
        if self.first_nonfinite_id is not None and self.first_nonfinite_id not in nodes:
            raise SchemaError(f"$.first_nonfinite refers to unknown node {self.first_nonfinite_id!r}")


# -- generic (de)serialisation of the frozen dataclasses above ----------------------------

_NO_DEFAULT = object()
# Types written into JSON as they are.
_PLAIN = frozenset({str, int, bool, float, type(None)})
# Per record class: (field name, its JSON name, default value or _NO_DEFAULT) in declaration
# order. A field's JSON name differs only where the document's name is a Python property's.
_LAYOUTS: dict[type, tuple[tuple[str, str, object], ...]] = {}
# The instance attribute (not a dataclass field: records compare and hash without it) holding
# the fields of a newer minor version that this reader does not know, as read.
_UNKNOWN = "_unknown_fields"


def _layout(cls: type) -> tuple[tuple[str, str, object], ...] | None:
    layout = _LAYOUTS.get(cls)
    if layout is None and dataclasses.is_dataclass(cls):
        layout = _LAYOUTS[cls] = tuple(
            (f.name, _json_name(f), _NO_DEFAULT if f.default is dataclasses.MISSING else f.default)
            for f in dataclasses.fields(cls)
        )
    return layout


def _json_name(f: dataclasses.Field[Any]) -> str:
    return str(f.metadata.get("json", f.name))


def _to_data(value: object, memo: dict[int, object] | None = None) -> object:
    """Plain JSON data of a record, its fields at their default left out. With ``memo``, the
    data of a record converted before is reused, by id (one tensor meta or argument list is
    shared by many nodes and edges; the caller keeps the records alive meanwhile), so the
    result shares objects: for writing JSON, not for handing out."""
    if memo is not None:
        found = memo.get(id(value))
        if found is not None:
            return found
    layout = _layout(type(value))
    if layout is not None:
        fields = value.__dict__
        out: dict[str, object] = {}
        for name, key, default in layout:
            item = fields[name]
            if type(item) is Deferred:
                item.resolve()
                item = fields[name]
            if item is default or (default is not _NO_DEFAULT and item == default):
                continue
            out[key] = item if type(item) in _PLAIN else _to_data(item, memo)
        unknown = fields.get(_UNKNOWN)
        if unknown is not None:
            # Copied for to_dict(), whose result the caller owns; to_json() only reads it.
            out.update(unknown if memo is not None else copy.deepcopy(unknown))
        if memo is not None:
            memo[id(value)] = out
        return out
    if isinstance(value, (tuple, list)):
        data = [item if type(item) in _PLAIN else _to_data(item, memo) for item in value]
        if memo is not None:
            memo[id(value)] = data
        return data
    return value


# -- fast construction, for the tracer -------------------------------------------------------
# The dataclass __init__ of a frozen record sets each field through object.__setattr__; the
# tracer makes thousands of records per trace, so it uses these makers instead, which set the
# instance dict in one step (about twice as fast). They take every field, in declaration
# order; a test checks each one against the dataclass __init__.

def make_attribute(name: str, value: str) -> Attribute:
    record = _new(Attribute)
    _setattr(record, "__dict__", {"name": name, "value": value})
    return record


def make_argument(name: str | None, value: str) -> Argument:
    record = _new(Argument)
    _setattr(record, "__dict__", {"name": name, "value": value})
    return record


def make_call_tensor(name: str, source: str, source_output: int, tensor: TensorMeta) -> CallTensor:
    record = _new(CallTensor)
    _setattr(record, "__dict__", {"name": name, "source": source, "source_output": source_output, "tensor": tensor})
    return record


def make_edge(source: str, source_output: int, target: str, target_input: int, tensor: TensorMeta) -> Edge:
    record = _new(Edge)
    _setattr(record, "__dict__", {"source": source, "source_output": source_output, "target": target,
                                  "target_input": target_input, "tensor": tensor})
    return record


def make_node(id: str, kind: NodeKind, name: str, label: str, module: str, outputs: tuple[TensorMeta, ...],
              arguments: tuple[Argument, ...], source: SourceLocation | None, value: str | None,
              error: NodeError | None, bytes: int | None = None, flops: int | None = None,
              time_us: float | None = None) -> Node:
    record = _new(Node)
    _setattr(record, "__dict__", {"id": id, "kind": kind, "name": name, "label": label, "module": module,
                                  "outputs": outputs, "arguments": arguments, "source": source, "value": value,
                                  "error": error, "bytes": bytes, "flops": flops, "time_us": time_us})
    return record


def make_parameter_info(name: str, kind: Literal["parameter", "buffer"], shape: tuple[int, ...], dtype: str,
                        numel: int, requires_grad: bool) -> ParameterInfo:
    record = _new(ParameterInfo)
    _setattr(record, "__dict__", {"name": name, "kind": kind, "shape": shape, "dtype": dtype, "numel": numel,
                                  "requires_grad": requires_grad})
    return record


def make_module_call(id: str, parent: str | None, path: str, name: str, class_name: str, class_qualname: str,
                     call_index: int, num_params: int, num_params_own: int, signature: str,
                     parameters: tuple[ParameterInfo, ...], extra_repr: str, failed: bool,
                     source: SourceLocation | None, inputs: tuple[CallTensor, ...],
                     outputs: tuple[CallTensor, ...], bytes: int | None = None,
                     param_bytes: int | None = None, flops: int | None = None,
                     time_us: float | None = None, attributes: tuple[Attribute, ...] = ()) -> ModuleCall:
    record = _new(ModuleCall)
    _setattr(record, "__dict__", {"id": id, "parent": parent, "path": path, "name": name,
                                  "class_name": class_name, "class_qualname": class_qualname,
                                  "call_index": call_index, "num_params": num_params,
                                  "num_params_own": num_params_own, "signature": signature,
                                  "parameters": parameters, "extra_repr": extra_repr, "failed": failed,
                                  "source": source, "inputs": inputs, "outputs": outputs, "bytes": bytes,
                                  "param_bytes": param_bytes, "flops": flops, "time_us": time_us,
                                  "attributes": attributes})
    return record


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls, sys.modules[cls.__module__].__dict__)
    return _HINTS[cls]


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _from_data(tp: Any, data: object, path: str, newer_minor: bool) -> object:
    """The record of type ``tp`` read from ``data``; with ``newer_minor``, fields unknown to
    ``tp`` are kept on the record (see the module docstring) instead of refused."""
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(data, Mapping):
            raise SchemaError(f"{path} must be an object, got {_short(data)}")
        known = {_json_name(f): f for f in dataclasses.fields(tp)}
        unknown = sorted(set(data) - set(known))
        if unknown and not newer_minor:
            raise SchemaError(f"{path} has unknown field(s) {unknown} for {tp.__name__}")
        kwargs = {}
        for name, f in known.items():
            if name in data:
                if data[name] is None and f.default is None:
                    if f.metadata.get("nullable"):  # the schema allows null for "none found"
                        continue
                    raise SchemaError(f"{path}.{name} must be left out rather than null")
                kwargs[f.name] = _from_data(_hints(tp)[f.name], data[name], f"{path}.{name}", newer_minor)
            elif f.default is dataclasses.MISSING:
                raise SchemaError(f"{path} is missing the required field {name!r}")
        record = tp(**kwargs)
        if unknown:
            kept = {name: copy.deepcopy(data[name]) for name in unknown}
            check_finite(kept, path)
            _setattr(record, _UNKNOWN, kept)
        return record
    if origin is Literal:
        if data not in typing.get_args(tp):
            raise SchemaError(f"{path} must be one of {list(typing.get_args(tp))}, got {_short(data)}")
        return data
    if origin in (Union, types.UnionType):
        options = typing.get_args(tp)
        if data is None and type(None) in options:
            return None
        (inner,) = [o for o in options if o is not type(None)]
        return _from_data(inner, data, path, newer_minor)
    if origin is tuple:
        if not isinstance(data, list):
            raise SchemaError(f"{path} must be an array, got {_short(data)}")
        (item_type, _ellipsis) = typing.get_args(tp)
        return tuple(_from_data(item_type, v, f"{path}[{i}]", newer_minor) for i, v in enumerate(data))
    if tp is bool:
        if not isinstance(data, bool):
            raise SchemaError(f"{path} must be a boolean, got {_short(data)}")
        return data
    if tp is int:  # every integer of the schema (sizes, counts, lines, ports) is >= 0
        if not isinstance(data, int) or isinstance(data, bool) or data < 0:
            raise SchemaError(f"{path} must be a non-negative integer, got {_short(data)}")
        return data
    if tp is float:  # stats and times: JSON numbers, never NaN or infinite
        if not isinstance(data, (int, float)) or isinstance(data, bool) or not math.isfinite(data):
            raise SchemaError(f"{path} must be a finite number, got {_short(data)}")
        return float(data)
    if tp is str:
        if not isinstance(data, str):
            raise SchemaError(f"{path} must be a string, got {_short(data)}")
        return data
    raise TypeError(f"unsupported field type {tp!r} at {path}")  # pragma: no cover


