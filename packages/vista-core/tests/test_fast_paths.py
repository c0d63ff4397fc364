"""Forwards that pick torch's fused fast path only without a torch-function override
(``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer``, ``nn.TransformerEncoder``) take
the same path under Vista: the output is bitwise the plain one, and the graph shows the fused
call that ran, as one node inside its module."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest
import torch
from _clean import bitwise_equal, torch_left_clean
from torch.overrides import TorchFunctionMode

import vista_core
from vista_core import Graph

WIDTH = 16


def _layer(**kw: Any) -> torch.nn.TransformerEncoderLayer:
    return torch.nn.TransformerEncoderLayer(WIDTH, 4, 32, batch_first=True, **kw)


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(3, 5, WIDTH, generator=gen)
    # Padded rows: the nested-tensor fast path leaves them 0, the slow path does not.
    mask = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 2 + [True] * 3])
    return x, mask


def _cases() -> list[tuple[str, torch.nn.Module, tuple[Any, ...], dict[str, Any], str]]:
    torch.manual_seed(0)
    x, mask = _inputs()
    encoder = torch.nn.TransformerEncoder(_layer(), 2, enable_nested_tensor=True)
    return [
        ("multihead attention", torch.nn.MultiheadAttention(WIDTH, 4, batch_first=True), (x, x, x),
         {"need_weights": False}, "torch._native_multi_head_attention"),
        ("encoder layer", _layer(), (x,), {}, "torch._transformer_encoder_layer_fwd"),
        ("encoder layer, padding mask", _layer(), (x,), {"src_key_padding_mask": mask},
         "torch._transformer_encoder_layer_fwd"),
        ("encoder, padding mask, nested", encoder, (x,), {"src_key_padding_mask": mask},
         "torch._transformer_encoder_layer_fwd"),
    ]


CASES = _cases()


def _first(value: Any) -> torch.Tensor:
    return value[0] if isinstance(value, tuple) else value


def _ops(graph: Graph) -> list[str]:
    return [n.name for n in graph.ops()]


def _module_path(graph: Graph, node_module: str) -> str:
    return next(m.path for m in graph.modules if m.id == node_module)


@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode], ids=["no_grad", "inference_mode"])
@pytest.mark.parametrize(("name", "model", "args", "kwargs", "fused"), CASES, ids=[c[0] for c in CASES])
def test_fast_path_output_is_bitwise_the_plain_output(name: str, model: torch.nn.Module, args: tuple[Any, ...],
                                                      kwargs: dict[str, Any], fused: str,
                                                      context: Callable[[], Any]) -> None:
    model.eval()
    with context():
        plain = _first(model(*args, **kwargs))
        with torch_left_clean(model):
            result = vista_core.capture(model, args, kwargs=kwargs)
    assert result.exception is None
    assert bitwise_equal(_first(result.output), plain)
    ops = _ops(result.graph)
    assert fused in ops
    # Ops of the slow path never ran, so they are not in the graph.
    assert "torch.nn.functional.multi_head_attention_forward" not in ops
    assert "torch.nn.functional.linear" not in ops


def test_nested_encoder_graph_shows_each_fused_layer_in_its_layer_with_shapes() -> None:
    _, model, args, kwargs, fused = CASES[3]
    model.eval()
    with torch.no_grad():
        graph = vista_core.trace(model, args, kwargs=kwargs)
    fused_nodes = [n for n in graph.ops() if n.name == fused]
    assert [_module_path(graph, n.module) for n in fused_nodes] == ["layers.0", "layers.1"]
    by_id = {n.id: n for n in graph.nodes}
    for node in fused_nodes:
        assert node.outputs[0].shape == (3, 5, WIDTH)  # the padded shape of the nested tensor
        assert node.outputs[0].dtype == "float32"
        sources = [by_id[e.source] for e in graph.edges if e.target == node.id]
        params = sorted(s.name for s in sources if s.kind == "parameter")
        layer = _module_path(graph, node.module)
        assert params == sorted(f"{layer}.{p}" for p, _ in model.layers[0].named_parameters())
        # The layer's input tensor comes in, from the nested conversion or the previous layer.
        assert any(s.kind == "op" for s in sources)
    # Input to output, connected: the mask and x reach the output through the fused calls.
    output = next(n for n in graph.nodes if n.kind == "output")
    assert _reaches(graph, "x", output.id) or _reaches(graph, "src", output.id)
    assert _reaches(graph, "src_key_padding_mask", output.id)


def _reaches(graph: Graph, input_name: str, target: str) -> bool:
    start = [n.id for n in graph.nodes if n.kind == "input" and n.name == input_name]
    seen, todo = set(start), list(start)
    while todo:
        node = todo.pop()
        for e in graph.edges:
            if e.source == node and e.target not in seen:
                seen.add(e.target)
                todo.append(e.target)
    return target in seen


@pytest.mark.parametrize(("name", "model", "args", "kwargs", "fused"), CASES, ids=[c[0] for c in CASES])
def test_slow_path_when_torch_takes_it(name: str, model: torch.nn.Module, args: tuple[Any, ...],
                                       kwargs: dict[str, Any], fused: str) -> None:
    # With grad enabled and parameters that require it, torch itself takes the slow path.
    model.eval()
    plain = _first(model(*args, **kwargs))
    result = vista_core.capture(model, args, kwargs=kwargs)
    assert bitwise_equal(_first(result.output), plain)
    assert fused not in _ops(result.graph)
    assert "torch.nn.functional.multi_head_attention_forward" in _ops(result.graph)


class _UserMode(TorchFunctionMode):
    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        return func(*args, **(kwargs or {}))


def test_a_users_own_mode_gives_the_slow_path_as_it_does_plainly() -> None:
    _, model, args, kwargs, fused = CASES[3]
    model.eval()
    with torch.no_grad(), _UserMode():
        plain = _first(model(*args, **kwargs))
        with torch_left_clean(model):
            result = vista_core.capture(model, args, kwargs=kwargs)
    assert bitwise_equal(_first(result.output), plain)
    assert fused not in _ops(result.graph)


def test_a_debuggers_trace_function_keeps_running_and_is_restored() -> None:
    _, model, args, kwargs, fused = CASES[3]
    model.eval()
    calls: list[str] = []

    def debugger(frame: Any, event: str, arg: Any) -> Any:
        if event == "call" and frame.f_code.co_name == "forward":
            calls.append(frame.f_code.co_filename)
        return debugger

    with torch.no_grad():
        plain = _first(model(*args, **kwargs))
        previous = sys.gettrace()
        sys.settrace(debugger)
        try:
            result = vista_core.capture(model, args, kwargs=kwargs)
            assert sys.gettrace() is debugger
        finally:
            sys.settrace(previous)
    assert bitwise_equal(_first(result.output), plain)
    assert fused in _ops(result.graph)
    # The encoder's forward and both layers' forwards were seen by the debugger.
    assert len([c for c in calls if c.endswith("transformer.py")]) >= 3


def test_failure_inside_a_fast_path_forward_leaves_torch_clean() -> None:
    model = _layer().eval()
    with torch.no_grad(), torch_left_clean(model):
        result = vista_core.capture(model, (torch.randn(2, 3, WIDTH + 1),))
    assert result.exception is not None
    assert sys.gettrace() is None


class ChecksItself(torch.nn.Module):
    """A module of the user's that picks a path the way torch's transformer modules do."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.overrides.has_torch_function((x,)):
            return x * 2
        return x + 1


def test_any_forward_that_checks_for_overrides_gets_the_plain_answer() -> None:
    model = torch.nn.Sequential(torch.nn.Identity(), ChecksItself())
    x = torch.ones(2)
    with torch_left_clean(model):
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, x + 1)
    assert "torch.Tensor.add" in _ops(result.graph)


class Subclassed(torch.nn.TransformerEncoderLayer):
    pass


def test_subclass_of_a_fast_path_module_takes_the_fast_path() -> None:
    torch.manual_seed(0)
    model = Subclassed(WIDTH, 4, 32, batch_first=True).eval()
    x, _ = _inputs()
    with torch.no_grad():
        plain = model(x)
        result = vista_core.capture(model, (x,))
    assert bitwise_equal(result.output, plain)
    assert _ops(result.graph) == ["torch._transformer_encoder_layer_fwd"]
