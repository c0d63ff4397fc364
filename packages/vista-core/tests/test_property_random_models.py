# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Property-based tests: random models must trace without Vista ever being what breaks.

Hypothesis draws a *spec* (plain tuples, so failures shrink to a readable case) and the test
builds a deterministic model from it: random compositions of torch.nn layers (Linear, Conv1d,
Conv2d, BatchNorm, LayerNorm, Dropout, Embedding, LSTM, GRU, MultiheadAttention,
TransformerEncoderLayer, a TransformerEncoder with a padding mask (in eval without grad these
three take torch's fused fast paths, the encoder through nested tensors), a torch.jit.script
submodule) and functional ops (in-place, indexing get/set, factories, einsum, sdpa, linalg,
fft, special, data-dependent control flow, torch.vmap, ops under a torch-function mode of the
user's own), branches merged by add, mul, cat
and stack, a submodule reused several times (registered under two names or not registered
at all), tied weights (an encoder and a head sharing one weight, a parent reading its child's
weight, a weight read transposed, a buffer registered in two modules), nested
tuples/lists/dicts with non-tensor leaves as inputs and outputs, random small shapes,
dtypes, train/eval and grad modes, and optionally a point where the forward raises (a
Python exception of a chosen type, or a failing torch op).

For every case: tracing raises nothing of its own (the model's exception comes back as the
very object the model raised); the document validates against the JSON Schema; it round-trips
through ``Graph.from_json``; two traces give byte-identical JSON; no parameter or buffer
edge leaves the module call its node is in; every tensor output is reachable from the input;
the outputs, the RNG state and the model's parameters and buffers equal those of an untraced
run, bit for bit; torch is left unchanged (``_clean.torch_left_clean``); the document's FLOPs
are what ``FlopCounterMode`` counts for the same forward (see ``check_flops``).

Examples: the ``ci`` profile (default) runs 40, derandomized; ``VISTA_HYPOTHESIS_PROFILE=long``
(``nox -s hypothesis_long``) runs 1000. The profiles are registered in ``conftest.py``.
"""

from __future__ import annotations

import copy
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from _clean import bitwise_equal, model_state, torch_left_clean
from hypothesis import event, given
from hypothesis import strategies as st
from torch import nn
from torch.overrides import TorchFunctionMode
from torch.utils.flop_counter import FlopCounterMode

import vista_core

SEED = 1234

# -- the spec ------------------------------------------------------------------------------

LAYERS = ("linear", "linear_nobias", "layernorm", "batchnorm", "dropout", "conv1d", "conv2d", "embedding",
          "lstm", "gru", "mha", "encoder_layer", "encoder_nested", "scripted", "relu_module", "gelu_module")
FUNCS = ("relu", "gelu", "tanh", "sigmoid_method", "scale", "radd", "softmax", "inplace", "setitem",
         "inplace_view", "getitem_index", "where", "reshape", "chunk_cat", "matmul_factory", "const_attr",
         "einsum", "item_branch", "shape_number", "detach", "dtype_roundtrip", "nan_to_num", "unbind_stack",
         "linalg", "fft", "special", "sdpa", "vmap", "user_mode", "script_fn")
MERGES = ("add", "mul", "cat", "stack")
TIED = ("encoder_head", "parent_reads", "transposed", "buffer")
#: Python raises (an error node) and failing torch ops (a failed op node).
RAISES = ("ValueError", "RuntimeError", "KeyError", "CustomError", "AssertionError", "torch_cat_mismatch",
          "torch_index")

Spec = tuple[Any, ...]

leaf_blocks = st.one_of(
    st.tuples(st.just("layer"), st.sampled_from(LAYERS)),
    st.tuples(st.just("func"), st.sampled_from(FUNCS)),
    st.tuples(st.just("shared"), st.integers(0, 1), st.booleans()),
    st.tuples(st.just("tied"), st.sampled_from(TIED)),
)
blocks: st.SearchStrategy[Spec] = st.recursive(
    leaf_blocks,
    lambda inner: st.one_of(
        st.tuples(st.just("seq"), st.lists(inner, min_size=1, max_size=3).map(tuple)),
        st.tuples(st.just("branch"), st.lists(inner, min_size=2, max_size=3).map(tuple), st.sampled_from(MERGES)),
        st.tuples(st.just("repeat"), inner, st.integers(2, 3)),
    ),
    max_leaves=8,
)
# Nested containers: "T" is a tensor leaf; 3, "s" and None are non-tensor leaves.
structures: st.SearchStrategy[Any] = st.recursive(
    st.sampled_from(["T", "T", "T", 3, "s", None]),
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.lists(inner, min_size=1, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, min_size=1, max_size=2),
    ),
    max_leaves=5,
)


@dataclass(frozen=True)
class Case:
    """One drawn model and its inputs."""

    body: Spec
    batch: int
    features: int
    dtype: torch.dtype
    training: bool
    grad: bool
    extra_inputs: Any
    keyword_inputs: dict[str, Any]
    outputs: Any
    raise_at: tuple[str, int] | None


cases = st.builds(
    Case,
    body=blocks,
    batch=st.integers(1, 3),
    features=st.sampled_from([4, 6, 8]),
    dtype=st.sampled_from([torch.float32, torch.float64]),
    training=st.booleans(),
    grad=st.booleans(),
    extra_inputs=st.lists(structures, max_size=2).map(tuple),
    keyword_inputs=st.dictionaries(st.sampled_from(["k", "mask"]), structures, max_size=2),
    outputs=structures,
    raise_at=st.none() | st.tuples(st.sampled_from(RAISES), st.integers(0, 5)),
)


# -- building a model from a spec ----------------------------------------------------------

class CustomError(Exception):
    """An exception class of the user's own."""


class Trigger:
    """Counts the blocks run; raises at the chosen one. A plain object (not a module), shared
    by all blocks of one model; ``created`` and ``raised`` let the test check identity."""

    def __init__(self, raise_at: tuple[str, int] | None) -> None:
        self.raise_at = raise_at
        self.count = 0
        self.created: BaseException | None = None
        self.raised: BaseException | None = None

    def step(self, x: torch.Tensor) -> None:
        if self.raise_at is None:
            return
        kind, at = self.raise_at
        self.count += 1
        if self.count != at + 1:
            return
        if kind == "torch_cat_mismatch":
            torch.cat([x, x[:, :1].unsqueeze(-1)], 0)  # RuntimeError raised by torch inside the op
        elif kind == "torch_index":
            x[:, x.shape[1] + 3]  # IndexError raised by torch inside the op
        else:
            exc_type: type[Exception] = {"ValueError": ValueError, "RuntimeError": RuntimeError,
                                         "KeyError": KeyError, "CustomError": CustomError,
                                         "AssertionError": AssertionError}[kind]
            self.created = exc_type(f"raised on purpose at block {at} ({kind})")
            raise self.created


class Block(nn.Module):
    """Base of all generated blocks: ticks the trigger, then runs ``body`` (B, F) -> (B, F)."""

    def __init__(self, trigger: Trigger) -> None:
        super().__init__()
        self.trigger = trigger

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.trigger.step(x)
        return self.body(x)

    def body(self, x: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class Layer(Block):
    def __init__(self, trigger: Trigger, kind: str, features: int) -> None:
        super().__init__(trigger)
        self.kind = kind
        f = features
        if kind == "linear":
            self.inner: nn.Module = nn.Linear(f, f)
        elif kind == "linear_nobias":
            self.inner = nn.Linear(f, f, bias=False)
        elif kind == "layernorm":
            self.inner = nn.LayerNorm(f)
        elif kind == "batchnorm":
            self.inner = nn.BatchNorm1d(f)
        elif kind == "dropout":
            self.inner = nn.Dropout(0.3)
        elif kind == "conv1d":
            self.inner = nn.Conv1d(1, 2, 3, padding=1)
        elif kind == "conv2d":
            self.inner = nn.Conv2d(1, 1, 3, padding=1)
        elif kind == "embedding":
            self.inner = nn.Embedding(10, f)
        elif kind == "lstm":
            self.inner = nn.LSTM(f, f, batch_first=True)
        elif kind == "gru":
            self.inner = nn.GRU(f, f, batch_first=True)
        elif kind == "mha":
            self.inner = nn.MultiheadAttention(f, 2, batch_first=True)
        elif kind == "encoder_layer":
            self.inner = nn.TransformerEncoderLayer(f, 2, dim_feedforward=8, dropout=0.1, batch_first=True)
        elif kind == "encoder_nested":
            layer = nn.TransformerEncoderLayer(f, 2, dim_feedforward=8, dropout=0.1, batch_first=True)
            self.inner = nn.TransformerEncoder(layer, 2, enable_nested_tensor=True)
        elif kind == "scripted":
            self.inner = torch.jit.script(nn.Sequential(nn.Linear(f, f), nn.Tanh()))
        elif kind == "relu_module":
            self.inner = nn.ReLU()
        elif kind == "gelu_module":
            self.inner = nn.GELU()
        else:
            raise AssertionError(kind)

    def body(self, x: torch.Tensor) -> torch.Tensor:
        kind, inner = self.kind, self.inner
        if kind == "conv1d":
            return inner(x.unsqueeze(1)).mean(1)
        if kind == "conv2d":
            return inner(x.view(x.shape[0], 1, 2, -1)).flatten(1)
        if kind == "embedding":
            index = (x.detach().abs() * 3).long().clamp(0, 9)
            return x + inner(index).mean(1)
        if kind in ("lstm", "gru"):
            out, _state = inner(x.unsqueeze(1))
            return out[:, 0]
        if kind == "mha":
            seq = x.unsqueeze(1)
            out, _weights = inner(seq, seq, seq)
            return out[:, 0]
        if kind == "encoder_layer":
            return inner(x.unsqueeze(1)).squeeze(1)
        if kind == "encoder_nested":
            # Three tokens per row, the last one padded in the first row (nested tensors inside).
            seq = x.unsqueeze(1).expand(-1, 3, -1)
            padding = torch.zeros(x.shape[0], 3, dtype=torch.bool)
            padding[0, 2:] = True
            return inner(seq, src_key_padding_mask=padding).mean(1)
        return inner(x)


class Func(Block):
    def __init__(self, trigger: Trigger, kind: str, features: int, dtype: torch.dtype) -> None:
        super().__init__(trigger)
        self.kind = kind
        self.const = torch.linspace(-1.0, 1.0, features, dtype=dtype)  # a plain attribute: a constant

    def body(self, x: torch.Tensor) -> torch.Tensor:
        k = self.kind
        if k == "relu":
            return F.relu(x)
        if k == "gelu":
            return F.gelu(x)
        if k == "tanh":
            return torch.tanh(x)
        if k == "sigmoid_method":
            return x.sigmoid()
        if k == "scale":
            return x * 0.5
        if k == "radd":
            return 1.0 + x
        if k == "softmax":
            return x.softmax(-1)
        if k == "inplace":
            y = x.clone()
            y.mul_(0.5).add_(1.0)
            return y
        if k == "setitem":
            y = x.clone()
            y[:, 0] = x[:, -1]
            return y
        if k == "inplace_view":
            y = x.clone()
            y[:, :1].zero_()
            return y
        if k == "getitem_index":
            return x[:, torch.arange(x.shape[1] - 1, -1, -1)]
        if k == "where":
            return torch.where(x > 0, x, x * 0.1)
        if k == "reshape":
            return x.reshape(x.shape[0], 2, -1).transpose(1, 2).reshape(x.shape[0], -1)
        if k == "chunk_cat":
            a, b = x.chunk(2, dim=-1)
            return torch.cat([b, a], -1)
        if k == "matmul_factory":
            return x @ torch.eye(x.shape[1], dtype=x.dtype)
        if k == "const_attr":
            return x + self.const
        if k == "einsum":
            return torch.einsum("bf,f->bf", x, self.const)
        if k == "item_branch":
            return x - 1 if x.sum().item() > 0 else x + 1
        if k == "shape_number":
            return x * float(x.dim() + x.size(1))
        if k == "detach":
            return x.detach() + x
        if k == "dtype_roundtrip":
            return x.to(torch.float16).to(x.dtype)
        if k == "nan_to_num":
            return torch.nan_to_num(x.log(), nan=0.5, neginf=-2.0)
        if k == "unbind_stack":
            return torch.stack(x.unbind(1), 1)
        if k == "linalg":
            return x + torch.linalg.vector_norm(x, dim=-1, keepdim=True)
        if k == "fft":
            return torch.fft.fft(x).real
        if k == "special":
            return torch.special.expit(x)
        if k == "sdpa":
            seq = x.unsqueeze(1)
            return F.scaled_dot_product_attention(seq, seq, seq).squeeze(1)
        if k == "vmap":
            # Its result is the block's output: one opaque node of the block's call.
            return torch.vmap(lambda row: row * 2.0 + row.sum())(x)
        if k == "user_mode":
            with PassThroughMode():
                return torch.tanh(x) * 2
        if k == "script_fn":
            y = scripted_step(x)  # run by the TorchScript interpreter, its result read twice here
            return y * y + y
        raise AssertionError(k)


@torch.jit.script
def scripted_step(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x) * 0.5


class PassThroughMode(TorchFunctionMode):
    """A torch-function mode of the user's own, entered inside a forward."""

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return func(*args, **(kwargs or {}))


class Shared(Block):
    """Calls one module of the model's shared pool: registered here too (two paths to one
    module) or held outside the module tree (a plain reference)."""

    def __init__(self, trigger: Trigger, target: nn.Module, registered: bool) -> None:
        super().__init__(trigger)
        if registered:
            self.target = target
        else:
            self.__dict__["unregistered"] = target

    def body(self, x: torch.Tensor) -> torch.Tensor:
        target = self.__dict__.get("unregistered") or self.target
        out: torch.Tensor = target(x)
        return out


class Tied(Block):
    """Weights tied the ways models tie them: an encoder and a head sharing one weight (T5,
    Whisper, GPT-2), a weight the parent reads from its child besides the child's own call,
    a head reading it transposed, and a buffer registered in two modules."""

    def __init__(self, trigger: Trigger, kind: str, features: int) -> None:
        super().__init__(trigger)
        self.kind = kind
        self.enc = nn.Linear(features, features)
        self.head = nn.Linear(features, features, bias=False)
        self.head.weight = self.enc.weight
        table = torch.linspace(-1, 1, features)
        self.left, self.right = BufferReader(table), BufferReader(table)

    def body(self, x: torch.Tensor) -> torch.Tensor:
        if self.kind == "encoder_head":
            return self.head(torch.tanh(self.enc(x)))
        if self.kind == "parent_reads":
            return self.enc(x) + x @ self.enc.weight.T
        if self.kind == "transposed":
            return F.linear(self.enc(x), self.head.weight.t())
        return self.left(x) * self.right(x)


class BufferReader(nn.Module):
    def __init__(self, table: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("table", table)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.table.to(x.dtype)


class Seq(Block):
    def __init__(self, trigger: Trigger, children: list[Block]) -> None:
        super().__init__(trigger)
        self.children_ = nn.ModuleList(children)

    def body(self, x: torch.Tensor) -> torch.Tensor:
        for child in self.children_:
            x = child(x)
        return x


class Repeat(Block):
    """One block called several times."""

    def __init__(self, trigger: Trigger, child: Block, times: int) -> None:
        super().__init__(trigger)
        self.child = child
        self.times = times

    def body(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(self.times):
            x = self.child(x)
        return x


class Branch(Block):
    def __init__(self, trigger: Trigger, children: list[Block], merge: str, features: int) -> None:
        super().__init__(trigger)
        self.paths = nn.ModuleList(children)
        self.merge = merge
        if merge == "cat":
            self.project = nn.Linear(features * len(children), features)

    def body(self, x: torch.Tensor) -> torch.Tensor:
        ys = [path(x) for path in self.paths]
        if self.merge == "add":
            out = ys[0]
            for y in ys[1:]:
                out = out + y
            return out
        if self.merge == "mul":
            out = ys[0]
            for y in ys[1:]:
                out = out * y
            return out
        if self.merge == "cat":
            projected: torch.Tensor = self.project(torch.cat(ys, dim=-1))
            return projected
        return torch.stack(ys, 0).mean(0)


def build_block(spec: Spec, trigger: Trigger, pool: nn.ModuleList, case: Case) -> Block:
    kind = spec[0]
    if kind == "layer":
        return Layer(trigger, spec[1], case.features)
    if kind == "func":
        return Func(trigger, spec[1], case.features, case.dtype)
    if kind == "shared":
        return Shared(trigger, pool[spec[1]], spec[2])
    if kind == "tied":
        return Tied(trigger, spec[1], case.features)
    if kind == "seq":
        return Seq(trigger, [build_block(s, trigger, pool, case) for s in spec[1]])
    if kind == "repeat":
        return Repeat(trigger, build_block(spec[1], trigger, pool, case), spec[2])
    if kind == "branch":
        return Branch(trigger, [build_block(s, trigger, pool, case) for s in spec[1]], spec[2], case.features)
    raise AssertionError(kind)


def tensors_in(value: object) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_in(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    return []


def make_structure(structure: Any, tensor: Callable[[int], torch.Tensor], counter: list[int]) -> Any:
    """A nested value shaped like ``structure``; tensor leaves from ``tensor(i)``."""
    if structure == "T":
        counter[0] += 1
        return tensor(counter[0])
    if isinstance(structure, dict):
        return {k: make_structure(v, tensor, counter) for k, v in structure.items()}
    if isinstance(structure, list):
        return [make_structure(v, tensor, counter) for v in structure]
    if isinstance(structure, tuple):
        return tuple(make_structure(v, tensor, counter) for v in structure)
    return structure


def count_leaves(structure: Any, *, count_none: bool) -> int:
    """Leaves as the document lists them (None leaves are not outputs, but are inputs)."""
    if isinstance(structure, dict):
        return sum(count_leaves(v, count_none=count_none) for v in structure.values())
    if isinstance(structure, (list, tuple)):
        return sum(count_leaves(v, count_none=count_none) for v in structure)
    return 0 if structure is None and not count_none else 1


class RandomModel(nn.Module):
    def __init__(self, case: Case) -> None:
        super().__init__()
        self.trigger = Trigger(case.raise_at)
        self.pool = nn.ModuleList([nn.Linear(case.features, case.features),
                                   nn.Sequential(nn.Linear(case.features, case.features), nn.GELU())])
        self.body = build_block(case.body, self.trigger, self.pool, case)
        self.output_structure = case.outputs

    def forward(self, x: torch.Tensor, *rest: Any, **keywords: Any) -> Any:
        self.trigger.count = 0
        try:
            for t in tensors_in((rest, keywords)):
                x = x + t
            y = self.body(x)
            return make_structure(self.output_structure, lambda i: y if i == 1 else y * float(i), [0])
        except BaseException as exc:
            self.trigger.raised = exc
            raise


def build_case(case: Case) -> tuple[RandomModel, tuple[Any, ...], dict[str, Any]]:
    torch.manual_seed(0)
    model = RandomModel(case).to(case.dtype)
    model.train(case.training)
    generator = torch.Generator().manual_seed(1)

    def tensor(_i: int) -> torch.Tensor:
        return torch.randn(case.batch, case.features, dtype=case.dtype, generator=generator)

    counter = [0]
    args = (tensor(0), *make_structure(case.extra_inputs, tensor, counter))
    kwargs = make_structure(case.keyword_inputs, tensor, counter)
    return model, args, kwargs


# -- running -------------------------------------------------------------------------------

def run_plain(model: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, BaseException | None]:
    try:
        return model(*args, **kwargs), None
    except Exception as exc:  # noqa: BLE001 - the model's own failure, compared with the traced one
        return None, exc


def run_vista(fn: Callable[..., Any], model: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Every trace and capture of this module goes through this one line, so the root call's
    source location is the same in all documents."""
    return fn(model, args, kwargs=kwargs)


def assert_same_outputs(expected: Any, actual: Any) -> None:
    assert type(expected) is type(actual)
    if isinstance(expected, torch.Tensor):
        assert bitwise_equal(expected, actual), "traced output differs from the untraced output"
    elif isinstance(expected, dict):
        assert list(expected) == list(actual)
        for key in expected:
            assert_same_outputs(expected[key], actual[key])
    elif isinstance(expected, (list, tuple)):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual):
            assert_same_outputs(e, a)
    else:
        assert expected == actual


def check_document(graph: vista_core.Graph) -> str:
    document = graph.to_json()
    vista_core.validate_document(document)
    again = vista_core.Graph.from_json(document)
    assert again == graph
    assert again.to_json() == document
    return document


def check_parameters_stay_in_their_calls(graph: vista_core.Graph) -> None:
    """No parameter or buffer edge leaves the module call its node is in, and every node of a
    shared or tied tensor is listed under one of the tensor's names."""
    nodes = {n.id: n for n in graph.nodes}
    parent = {m.id: m.parent for m in graph.modules}
    for e in graph.edges:
        source = nodes[e.source]
        if source.kind not in ("parameter", "buffer"):
            continue
        call: str | None = nodes[e.target].module
        while call is not None and call != source.module:
            call = parent[call]
        assert call == source.module, f"{source.name} flows out of its module call into {nodes[e.target].module}"
    for shared in graph.shared_tensors:
        for n in shared.nodes:
            assert nodes[n].kind == shared.kind and nodes[n].name in shared.names


def check_outputs_reachable(graph: vista_core.Graph) -> None:
    """Every tensor output is reachable from the input ``x`` (each depends on it here)."""
    following: dict[str, list[str]] = {}
    for e in graph.edges:
        following.setdefault(e.source, []).append(e.target)
    (start,) = [n.id for n in graph.nodes if n.kind == "input" and n.name == "x"]
    seen, todo = {start}, [start]
    while todo:
        for nxt in following.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    # Non-tensor outputs (a number, a string) carry a value and no edge.
    missing = [n.name for n in graph.nodes if n.kind == "output" and n.value is None and n.id not in seen]
    assert not missing, f"outputs not reachable from the input: {missing}"


def check_flops(graph: vista_core.Graph, model: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """The FLOPs of the document are FlopCounterMode's for the same forward, exactly; except
    that a TorchScript submodule runs in its interpreter, where FlopCounterMode counts its aten
    ops and Vista sees one opaque node with no FLOPs."""
    torch.manual_seed(SEED)
    with FlopCounterMode(display=False) as counter:
        model(*args, **kwargs)
    expected = int(counter.get_total_flops())
    scripted = any(n.label == "TorchScript" for n in graph.ops())
    if scripted:
        assert graph.root.flops is not None and graph.root.flops <= expected
    else:
        assert graph.root.flops == expected, f"FLOPs {graph.root.flops} != FlopCounterMode's {expected}"


def check_case(case: Case) -> bool:
    """Run every check on one case; True when the model raised."""
    original, args, kwargs = build_case(case)
    plain, traced, retraced, raising, counted = (copy.deepcopy(original) for _ in range(5))
    grad = torch.enable_grad() if case.grad else torch.no_grad()
    with grad:
        torch.manual_seed(SEED)
        expected, expected_exc = run_plain(plain, args, kwargs)
        rng_plain = torch.get_rng_state()

        ids_before = [s[:3] for s in model_state(traced)]
        with torch_left_clean():
            torch.manual_seed(SEED)
            captured = run_vista(vista_core.capture, traced, args, kwargs)
        rng_traced = torch.get_rng_state()
        assert bitwise_equal(rng_plain, rng_traced), "tracing changed the RNG state"
        assert [s[:3] for s in model_state(traced)] == ids_before, "tracing replaced a parameter or buffer"
        # Same parameters, buffers (BatchNorm running stats in training), hooks and attributes.
        for p, t in zip(model_state(plain), model_state(traced)):
            assert all(bitwise_equal(a, b) for a, b in zip(p[3:], t[3:])
                       if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor))

        graph = captured.graph
        document = check_document(graph)
        check_parameters_stay_in_their_calls(graph)
        inputs = [n for n in graph.nodes if n.kind == "input"]
        structure = (("T", *case.extra_inputs), case.keyword_inputs)
        assert len(inputs) == count_leaves(structure, count_none=True)

        if expected_exc is None:
            assert captured.exception is None, f"tracing raised {captured.exception!r}"
            assert graph.error is None
            assert_same_outputs(expected, captured.output)
            outputs = [n for n in graph.nodes if n.kind == "output"]
            assert len(outputs) == count_leaves(case.outputs, count_none=False)
            check_outputs_reachable(graph)
            check_flops(graph, counted, args, kwargs)
        else:
            exc = captured.exception
            assert exc is not None
            assert exc is traced.trigger.raised, "capture returned another exception than the model raised"
            if traced.trigger.created is not None:
                assert exc is traced.trigger.created
                assert traceback.extract_tb(exc.__traceback__)[-1].name == "step", "traceback was altered"
            assert type(exc) is type(expected_exc)
            assert str(exc) == str(expected_exc)
            assert graph.error is not None
            assert graph.error.type == type(exc).__name__
            assert graph.error.node is not None
            failed = graph.node(graph.error.node)
            assert failed.kind in ("op", "error")
            assert failed.error is not None
            assert failed.error.type == type(exc).__name__
            assert graph.root.failed

        # Same model, same inputs, same RNG: byte-identical documents.
        torch.manual_seed(SEED)
        assert run_vista(vista_core.capture, retraced, args, kwargs).graph.to_json() == document
        # trace() gives the same document, or raises the model's exception object itself.
        torch.manual_seed(SEED)
        with torch_left_clean():
            if expected_exc is None:
                assert run_vista(vista_core.trace, raising, args, kwargs).to_json() == document
            else:
                with pytest.raises(type(expected_exc)) as info:
                    run_vista(vista_core.trace, raising, args, kwargs)
                assert info.value is raising.trigger.raised
    return expected_exc is not None


@given(case=cases)
def test_property_random_model_traces_transparently(case: Case) -> None:
    raised = check_case(case)
    event("the model raised" if raised else "the model returned")


# -- a few fixed cases, so each feature is exercised whatever Hypothesis draws -------------

FIXED = [
    pytest.param(("seq", tuple(("layer", k) for k in LAYERS)), None, id="every-layer"),
    pytest.param(("seq", tuple(("func", k) for k in FUNCS)), None, id="every-function"),
    pytest.param(("branch", (("shared", 0, True), ("shared", 0, False), ("repeat", ("shared", 1, True), 3)),
                  "cat"), None, id="shared-and-repeated"),
    pytest.param(("seq", (("layer", "linear"), ("branch", (("func", "relu"), ("layer", "lstm")), "stack"))),
                 ("CustomError", 2), id="raise-in-nested-block"),
    pytest.param(("seq", (("layer", "linear"), ("func", "tanh"))), ("torch_cat_mismatch", 1), id="failing-op"),
    pytest.param(("seq", (*(("tied", k) for k in TIED), ("repeat", ("tied", "encoder_head"), 2))), None,
                 id="tied-weights"),
]


@pytest.mark.parametrize(("body", "raise_at"), FIXED)
@pytest.mark.parametrize(("training", "grad"), [(False, False), (True, True)], ids=["eval-no_grad", "train-grad"])
def test_property_fixed_models(body: Spec, raise_at: tuple[str, int] | None, training: bool, grad: bool) -> None:
    check_case(Case(body=body, batch=2, features=8, dtype=torch.float32, training=training, grad=grad,
                    extra_inputs=({"a": ["T", 3]}, None), keyword_inputs={"mask": ("T", "s")},
                    outputs={"a": ("T", ["T", 7]), "b": None}, raise_at=raise_at))


UNSEEN = ("seq", (("layer", "mha"), ("layer", "encoder_layer"), ("layer", "encoder_nested"), ("layer", "scripted"),
                  ("func", "vmap"), ("func", "user_mode"),
                  ("func", "script_fn")))


@pytest.mark.parametrize(("training", "grad"), [(False, False), (True, True)], ids=["eval-no_grad", "train-grad"])
def test_property_fast_paths_and_unseen_code(training: bool, grad: bool) -> None:
    case = Case(body=UNSEEN, batch=2, features=8, dtype=torch.float32, training=training, grad=grad,
                extra_inputs=(), keyword_inputs={}, outputs="T", raise_at=None)
    check_case(case)  # bitwise outputs, every output reachable, torch clean, ...
    model, args, kwargs = build_case(case)
    with torch.enable_grad() if grad else torch.no_grad():
        ops = {n.name for n in vista_core.trace(model, args, kwargs=kwargs).ops()}
    fused = {"torch._native_multi_head_attention", "torch._transformer_encoder_layer_fwd",
             "torch._nested_tensor_from_mask"}
    # torch takes its fused paths in eval without grad only, and the graph shows the path taken.
    assert (fused <= ops) if not (training or grad) else not (fused & ops)
    assert "torch.jit._script.RecursiveScriptModule.forward" in ops
    assert "test_property_random_models.scripted_step" in ops
