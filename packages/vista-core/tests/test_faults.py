# mypy: disable-error-code="no-any-return"
# (torch types nn.Module.__call__ as returning Any, so every `return module(x)` would need a cast)
"""Faults inside the traced forward pass: each has a defined outcome, and torch is left clean.

The behaviour these tests define:

- Any exception the forward pass raises, including ``KeyboardInterrupt``, ``SystemExit``,
  ``RecursionError`` and ``MemoryError``, reaches the caller of :func:`vista_core.trace` as the
  very object that was raised, and is returned by :func:`vista_core.capture` as
  ``Capture.exception``.
- The partial graph holds every op that ran before the failure, a failed node (an ``error``
  node for an exception raised by Python code, the failed ``op`` node for a failing torch
  call) with the exception type and message, ``graph.error`` pointing at it, and every module
  call the exception left marked ``failed`` (calls that returned are not).
- Exceptions raised by the user's own hooks, generators and iterators are the model's
  exceptions like any other. ``print(tensor)`` and ``tensor.item()`` add no node. A broken
  ``__repr__`` or ``extra_repr`` never breaks a trace. A trace inside a trace gives two valid
  documents.
- Whatever happens, torch has no mode, hook or attribute of Vista's left afterwards.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from _clean import bitwise_equal, torch_left_clean
from torch import nn
from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook

import vista_core

pytestmark = pytest.mark.usefixtures("torch_clean")


def check(graph: vista_core.Graph) -> None:
    document = graph.to_json()
    vista_core.validate_document(document)
    assert vista_core.Graph.from_json(document) == graph


def calls(graph: vista_core.Graph) -> dict[str, vista_core.ModuleCall]:
    return {f"{m.path}#{m.call_index}": m for m in graph.modules}


def failed_node(graph: vista_core.Graph) -> vista_core.Node:
    assert graph.error is not None
    assert graph.error.node is not None
    node = graph.node(graph.error.node)
    assert node.error is not None
    return node


# -- exceptions raised inside forward ----------------------------------------------------

class Inner(nn.Module):
    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make
        self.raised: BaseException | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        self.raised = self.make()
        raise self.raised


class Middle(nn.Module):
    def __init__(self, make: Any) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.inner = Inner(make)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.inner(self.lin(x))
        return out


class Top(nn.Module):
    def __init__(self, make: Any) -> None:
        super().__init__()
        self.mid = Middle(make)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mid(x) * 2


FATAL = [
    pytest.param(KeyboardInterrupt, ("interrupted in forward",), id="KeyboardInterrupt"),
    pytest.param(SystemExit, (3,), id="SystemExit"),
    pytest.param(RecursionError, ("maximum recursion depth exceeded (on purpose)",), id="RecursionError"),
    pytest.param(MemoryError, ("no memory (on purpose)",), id="MemoryError"),
    pytest.param(GeneratorExit, ("generator exit (on purpose)",), id="GeneratorExit"),
]


@pytest.mark.parametrize(("exc_type", "args"), FATAL)
def test_base_exception_in_nested_forward_reaches_trace_caller_unchanged(
    exc_type: type[BaseException], args: tuple[object, ...]
) -> None:
    model = Top(lambda: exc_type(*args))
    x = torch.randn(2, 4)
    with torch_left_clean(model), pytest.raises(exc_type) as info:
        vista_core.trace(model, x)
    assert info.value is model.mid.inner.raised
    # Same traceback: it still ends at the model's own raise statement.
    innermost = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (innermost.name, innermost.line) == ("forward", "raise self.raised")


@pytest.mark.parametrize(("exc_type", "args"), FATAL)
def test_base_exception_in_nested_forward_gives_partial_graph(
    exc_type: type[BaseException], args: tuple[object, ...]
) -> None:
    model = Top(lambda: exc_type(*args))
    with torch_left_clean(model):
        result = vista_core.capture(model, torch.randn(2, 4))
    exc = result.exception
    assert exc is model.mid.inner.raised
    graph = result.graph
    check(graph)
    # The ops before the failure are there, nothing after it.
    assert [n.label for n in graph.ops()] == ["linear", "add"]
    assert not [n for n in graph.nodes if n.kind == "output"]
    # The failed node: an error node inside the innermost call, with type and message.
    node = failed_node(graph)
    assert node.kind == "error"
    assert node.error is not None
    assert node.error.type == type(exc).__name__
    assert node.error.message == str(exc)
    assert node.source is not None
    assert node.source.function == "forward"
    assert node.source.code == "raise self.raised"
    by_path = calls(graph)
    assert node.module == by_path["mid.inner#0"].id
    assert graph.error is not None
    assert graph.error.type == type(exc).__name__
    assert graph.error.qualname == f"builtins.{type(exc).__name__}"
    assert "raise self.raised" in graph.error.traceback
    # Calls the exception left are failed; the call that returned is not.
    assert {p: m.failed for p, m in by_path.items()} == {"#0": True, "mid#0": True, "mid.lin#0": False,
                                                         "mid.inner#0": True}
    assert exc is not None
    with pytest.raises(type(exc)) as info:
        result.reraise()
    assert info.value is exc


class Recursive(nn.Module):
    """Real unbounded recursion through module calls and torch ops."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self(x * 1.0)
        return out


class RecursiveFunction(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def down(t: torch.Tensor) -> torch.Tensor:
            return down(t + 1)

        return down(x)


@pytest.mark.parametrize("model", [Recursive(), RecursiveFunction()], ids=["modules", "function"])
@pytest.mark.parametrize("headroom", [0, 7, 23])
def test_real_recursion_error(model: nn.Module, headroom: int) -> None:
    """Wherever the recursion limit is hit (in the model, in torch or in Vista's own frames),
    the caller gets a RecursionError and a valid partial graph."""

    def nest(depth: int) -> vista_core.Capture:
        return nest(depth - 1) if depth else vista_core.capture(model, torch.randn(2, 3))

    untraced = None
    try:
        model(torch.randn(2, 3))
    except RecursionError as exc:
        untraced = exc
    assert untraced is not None
    with torch_left_clean(model):
        result = nest(headroom)
    assert isinstance(result.exception, RecursionError)
    check(result.graph)
    assert result.graph.error is not None
    assert result.graph.error.type == "RecursionError"
    assert result.graph.root.failed
    assert len(result.graph.nodes) > 10  # the ops of the levels that ran


def test_keyboard_interrupt_inside_a_torch_op() -> None:
    """Ctrl-C while torch runs an op (here: inside the Python callback of ``apply_``): the
    failed node is that op, marked with KeyboardInterrupt."""
    interrupt = KeyboardInterrupt("ctrl-c inside an op")

    def callback(value: float) -> float:
        if value > 2:
            raise interrupt
        return value

    def forward(x: torch.Tensor) -> torch.Tensor:
        return x.clone().apply_(callback) * 2

    with torch_left_clean():
        result = vista_core.capture(forward, torch.arange(5.0))
    assert result.exception is interrupt
    check(result.graph)
    node = failed_node(result.graph)
    assert (node.kind, node.label) == ("op", "apply_")
    assert node.error is not None
    assert node.error.type == "KeyboardInterrupt"
    assert [n.label for n in result.graph.ops()] == ["clone", "apply_"]


# -- the user's own hooks ------------------------------------------------------------------

class HookError(Exception):
    pass


def _raise(exc: BaseException) -> None:
    raise exc


HOOKS = ["module forward hook", "module forward pre-hook", "global forward hook", "global forward pre-hook"]


def _install(kind: str, target: nn.Module, exc: BaseException) -> Any:
    if kind == "module forward hook":
        return target.register_forward_hook(lambda m, a, o: _raise(exc))
    if kind == "module forward pre-hook":
        return target.register_forward_pre_hook(lambda m, a: _raise(exc))
    if kind == "global forward hook":
        return register_module_forward_hook(lambda m, a, o: _raise(exc) if m is target else None)
    return register_module_forward_pre_hook(lambda m, a: _raise(exc) if m is target else None)


@pytest.mark.parametrize("kind", HOOKS)
@pytest.mark.parametrize("exc_type", [HookError, KeyboardInterrupt])
def test_exception_from_users_hook(kind: str, exc_type: type[BaseException]) -> None:
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    exc = exc_type(f"raised by the user's {kind}")
    handle = _install(kind, model[1], exc)
    try:
        # The user's hook is part of torch's state before and after: Vista must leave it alone.
        with torch_left_clean(model):
            with pytest.raises(exc_type) as info:
                vista_core.trace(model, torch.randn(2, 4))
            assert info.value is exc
            result = vista_core.capture(model, torch.randn(2, 4))
    finally:
        handle.remove()
    assert result.exception is exc
    graph = result.graph
    check(graph)
    node = failed_node(graph)
    assert node.kind == "error"
    assert node.error is not None
    assert (node.error.type, node.error.message) == (exc_type.__name__, str(exc))
    assert graph.root.failed
    assert [n.label for n in graph.ops()][:1] == ["linear"]
    assert not [n for n in graph.nodes if n.kind == "output"]


@pytest.mark.parametrize("kind", ["module forward hook", "global forward hook"])
def test_module_whose_forward_hook_raises_is_the_failed_call(kind: str) -> None:
    """The hook runs inside the module call, so that call is left by the exception: it is
    marked failed and holds the error node (schema: "failed: the call was left by an
    exception")."""
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    handle = _install(kind, model[1], HookError("hook"))
    try:
        result = vista_core.capture(model, torch.randn(2, 4))
    finally:
        handle.remove()
    relu_call = calls(result.graph)["1#0"]
    assert relu_call.failed, "the ReLU call was left by its hook's exception"
    assert failed_node(result.graph).module == relu_call.id


# -- exceptions the model handles itself ---------------------------------------------------

class Flaky(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 3
        raise ValueError(f"flaky {tuple(y.shape)}")


class InPlaceNoReturn(nn.Module):
    """A module that writes into its input and returns None (legal for an nn.Module)."""

    def forward(self, x: torch.Tensor) -> None:
        x.add_(1)


class Recovering(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.flaky = Flaky()
        self.fill = InPlaceNoReturn()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x.clone()
        try:
            self.flaky(x)
        except ValueError:
            self.fill(y)  # called while the ValueError is being handled
        out: torch.Tensor = self.lin(y)
        return out


def test_exception_handled_inside_the_model() -> None:
    model = Recovering()
    x = torch.randn(2, 4)
    expected = model(x)
    with torch_left_clean(model):
        graph = vista_core.trace(model, x)
    check(graph)
    assert graph.error is None
    assert not graph.root.failed
    by_path = calls(graph)
    assert by_path["flaky#0"].failed
    assert [n.label for n in graph.ops()] == ["clone", "mul", "add_", "linear"]
    assert [n.name for n in graph.nodes if n.kind == "output"] == ["output"]
    result = vista_core.capture(model, x)
    assert bitwise_equal(result.output, expected)


def test_call_returning_none_inside_except_block_is_not_failed() -> None:
    """A module returning None, called while the caller handles an exception, returned
    normally: it must not be marked failed."""
    graph = vista_core.trace(Recovering(), torch.randn(2, 4))
    assert not calls(graph)["fill#0"].failed


# -- generators and iterators --------------------------------------------------------------

class FromGenerator(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def scaled() -> Iterator[torch.Tensor]:
            for i in range(5):
                if i == 2:
                    raise ValueError("generator failed at item 2")
                yield x * float(i + 1)

        total = torch.zeros_like(x)
        for item in scaled():
            total = total + item
        return total


class FailingIterator:
    def __init__(self, x: torch.Tensor) -> None:
        self.x = x
        self.i = 0

    def __iter__(self) -> FailingIterator:
        return self

    def __next__(self) -> torch.Tensor:
        self.i += 1
        if self.i == 3:
            raise RuntimeError("iterator failed at item 2")
        return self.x * float(self.i)


class FromIterator(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        total = torch.zeros_like(x)
        for item in FailingIterator(x):
            total = total + item
        return total


@pytest.mark.parametrize(("model", "function", "message"), [
    (FromGenerator(), "scaled", "generator failed at item 2"),
    (FromIterator(), "__next__", "iterator failed at item 2"),
])
def test_generator_or_iterator_failing_halfway(model: nn.Module, function: str, message: str) -> None:
    with torch_left_clean():
        result = vista_core.capture(model, torch.randn(2, 3))
    graph = result.graph
    check(graph)
    assert result.exception is not None
    assert str(result.exception) == message
    # zeros_like, then two items (mul, add) before the failure.
    assert [n.label for n in graph.ops()] == ["zeros_like", "mul", "add", "mul", "add"]
    node = failed_node(graph)
    assert node.kind == "error"
    assert node.error is not None
    assert node.error.message == message
    assert node.source is not None
    assert node.source.function == function  # the line that raised, inside the generator
    assert "raise" in node.source.code


# -- print and item ------------------------------------------------------------------------

class Chatty(nn.Module):
    def __init__(self, talk: bool) -> None:
        super().__init__()
        self.talk = talk
        self.lin = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.lin(x)
        total = y.sum()
        if self.talk:
            print(y)
            print(f"{total:.4f}", repr(total), total.item(), y.tolist())
        return y * 2 if total.item() > -1e9 else y


def test_print_and_item_add_no_node(capsys: pytest.CaptureFixture[str]) -> None:
    torch.manual_seed(0)
    talking, quiet = Chatty(True), Chatty(False)
    quiet.load_state_dict(talking.state_dict())
    x = torch.randn(2, 3)
    talking(x)
    printed = capsys.readouterr().out
    with torch_left_clean(talking):
        graph = vista_core.trace(talking, x)
    assert capsys.readouterr().out == printed, "tracing changed what print() shows"
    check(graph)
    reference = vista_core.trace(quiet, x)
    assert [(n.kind, n.name) for n in graph.nodes] == [(n.kind, n.name) for n in reference.nodes]
    assert [n.label for n in graph.ops()] == ["linear", "sum", "mul"]


# -- broken __repr__ and extra_repr ------------------------------------------------------

class BrokenRepr(nn.Linear):
    def __repr__(self) -> str:
        raise RuntimeError("__repr__ is broken")

    def extra_repr(self) -> str:
        raise ValueError("extra_repr is broken")


class OddExtraRepr(nn.Module):
    def __init__(self, text: object) -> None:
        super().__init__()
        self.text = text

    def extra_repr(self) -> Any:
        return self.text

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1


class HoldsBroken(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.broken = BrokenRepr(3, 3)
        self.long = OddExtraRepr("</script>" * 100_000)
        self.number = OddExtraRepr(42)

    def __repr__(self) -> str:
        raise RuntimeError("__repr__ is broken")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.number(self.long(self.broken(x)))


def test_broken_repr_and_extra_repr_never_break_a_trace() -> None:
    model = HoldsBroken()
    with torch_left_clean(model):
        graph = vista_core.trace(model, torch.randn(2, 3))
    check(graph)
    by_path = calls(graph)
    assert by_path["broken#0"].extra_repr == "<extra_repr() raised ValueError>"
    assert len(by_path["long#0"].extra_repr) <= 300
    assert by_path["number#0"].extra_repr == "42"


class StrBroken(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")


class RaisesStrBroken(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + 1
        raise StrBroken()


def test_exception_whose_str_raises() -> None:
    with torch_left_clean():
        result = vista_core.capture(RaisesStrBroken(), torch.randn(2))
    assert isinstance(result.exception, StrBroken)
    check(result.graph)
    node = failed_node(result.graph)
    assert node.error is not None
    assert node.error.type == "StrBroken"


# -- a trace inside a trace ----------------------------------------------------------------

class TracesItself(nn.Module):
    def __init__(self, fail_inside: bool) -> None:
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)
        self.fail_inside = fail_inside
        self.inner: list[vista_core.Capture] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        inner_input = x[:, :3] if self.fail_inside else x  # a shape error inside the inner trace
        self.inner.append(vista_core.capture(self.a, inner_input))
        out: torch.Tensor = self.b(self.a(x))
        return out


@pytest.mark.parametrize("fail_inside", [False, True], ids=["inner-succeeds", "inner-fails"])
def test_trace_inside_a_trace(fail_inside: bool) -> None:
    torch.manual_seed(0)
    model = TracesItself(fail_inside)
    x = torch.randn(2, 4)
    expected = model.b(model.a(x))
    with torch_left_clean(model):
        outer = vista_core.capture(model, x)
    assert outer.exception is None
    assert bitwise_equal(outer.output, expected)
    check(outer.graph)
    # The inner trace really ran the submodule, so the outer graph shows that call too.
    assert [m.path for m in outer.graph.modules] == ["", "a", "a", "b"]
    assert outer.graph.error is None
    (inner,) = model.inner
    check(inner.graph)
    assert [m.path for m in inner.graph.modules] == [""]
    assert inner.graph.root.class_name == "Linear"
    assert [n.name for n in inner.graph.ops()] == ["torch.nn.functional.linear"]
    if fail_inside:
        assert isinstance(inner.exception, RuntimeError)
        assert inner.graph.error is not None
        assert failed_node(inner.graph).kind == "op"
    else:
        assert inner.exception is None


# -- interrupted while Vista installs itself -------------------------------------------------

def test_interrupt_while_tracing_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception while Vista inserts its mode (after it registered its module hooks): torch
    must still be left without any hook of Vista's."""
    from vista_core import _lifecycle

    def interrupted(mode: Any, position: int) -> None:
        raise KeyboardInterrupt("interrupted while the mode is inserted")

    monkeypatch.setattr(_lifecycle, "insert_mode", interrupted)
    model = nn.Linear(2, 2)
    try:
        with torch_left_clean(model), pytest.raises(KeyboardInterrupt):
            vista_core.capture(model, torch.randn(1, 2))
    finally:
        _remove_leaked_hooks()


def _remove_leaked_hooks() -> None:
    """Keep a leak found by the test above from failing every later test."""
    from torch.nn.modules import module as nn_module

    for registry in (nn_module._global_forward_hooks, nn_module._global_forward_pre_hooks):
        for key, hook in list(registry.items()):
            if getattr(hook, "__module__", "").startswith("vista_core") or "vista_core" in repr(hook):
                del registry[key]
                nn_module._global_forward_hooks_always_called.pop(key, None)
