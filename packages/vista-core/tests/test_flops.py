"""FLOPs in the document (schema 1.1): torch's own formulas, per op and per module call; the
sum over the ops is what FlopCounterMode reports for the same forward, exactly."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

import vista_core
from vista_core import Graph


class _Block(torch.nn.Module):
    def __init__(self, channels: int, stride: int) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels // stride, channels, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(channels)
        self.down = (torch.nn.Sequential(torch.nn.Conv2d(channels // stride, channels, 1, stride, bias=False),
                                         torch.nn.BatchNorm2d(channels)) if stride > 1 else torch.nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.down(x))


class _ResNet(torch.nn.Module):
    """A small ResNet, by hand (no torchvision): stem, residual stages, pooling, classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 7, 2, 3, bias=False), torch.nn.BatchNorm2d(8),
                                        torch.nn.ReLU(), torch.nn.MaxPool2d(3, 2, 1))
        self.layers = torch.nn.Sequential(_Block(8, 1), _Block(16, 2), _Block(32, 2))
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(self.layers(self.stem(x)), 1), 1))


def _bert() -> tuple[torch.nn.Module, dict[str, Any]]:
    from transformers import BertConfig, BertModel
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=32)
    return BertModel(config).eval(), {"input_ids": torch.randint(0, 100, (2, 8))}


def _gpt2() -> tuple[torch.nn.Module, dict[str, Any]]:
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=32)
    return GPT2LMHeadModel(config).eval(), {"input_ids": torch.randint(0, 100, (1, 8))}


def _resnet() -> tuple[torch.nn.Module, dict[str, Any]]:
    return _ResNet().eval(), {"x": torch.randn(2, 3, 32, 32)}


def _reference(model: torch.nn.Module, inputs: dict[str, Any]) -> int:
    with FlopCounterMode(display=False) as counter:
        model(**inputs)
    return int(counter.get_total_flops())


def _check_subtree_sums(graph: Graph) -> None:
    children: dict[str, list[str]] = {}
    for m in graph.modules[1:]:
        assert m.parent is not None
        children.setdefault(m.parent, []).append(m.id)

    def subtree(mid: str) -> int:
        own = sum(n.flops or 0 for n in graph.ops() if n.module == mid)
        return own + sum(subtree(c) for c in children.get(mid, []))

    for m in graph.modules:
        assert m.flops == subtree(m.id), m.path


@pytest.mark.parametrize("make", [_bert, _gpt2, _resnet], ids=["bert", "gpt2", "resnet"])
@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
def test_flops_sum_to_what_flop_counter_mode_reports(make: Callable[[], tuple[torch.nn.Module, dict[str, Any]]],
                                                     grad: bool) -> None:
    torch.manual_seed(0)
    model, inputs = make()
    with torch.set_grad_enabled(grad):
        expected = _reference(model, inputs)
        graph = vista_core.trace(model, kwargs=inputs)
    assert expected > 0
    assert sum(n.flops or 0 for n in graph.ops()) == expected
    assert graph.root.flops == expected
    _check_subtree_sums(graph)
    assert any(n.flops is None for n in graph.ops())  # elementwise ops have no formula in torch
    assert all(n.flops is None for n in graph.nodes if n.kind != "op")


def test_flops_of_a_linear_are_torchs_formula() -> None:
    graph = vista_core.trace(torch.nn.Linear(16, 8), torch.randn(4, 16))
    (linear,) = graph.ops()
    assert linear.flops == 2 * 4 * 16 * 8
    assert [n.get("flops") for n in graph.to_dict()["nodes"] if n["kind"] == "op"] == [linear.flops]
    assert Graph.from_json(graph.to_json()) == graph
    vista_core.validate_document(graph.to_dict())


def test_flops_on_the_meta_device_without_weights() -> None:
    # The meta forward's own figure: on meta, attention runs the math kernel (two counted bmm),
    # on CPU a fused one without a formula, so the two devices' totals differ.
    with torch.device("meta"):
        meta_model, _ = _bert()
    meta_inputs = {"input_ids": torch.randint(0, 100, (2, 8), device="meta")}
    graph = vista_core.trace(meta_model, kwargs=meta_inputs)
    assert graph.root.flops == _reference(meta_model, meta_inputs) > 0
    _check_subtree_sums(graph)


def test_replays_leave_the_random_stream_alone() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5)).train()
    torch.manual_seed(3)
    vista_core.trace(model, torch.randn(2, 4))
    after_trace = torch.rand(3)
    torch.manual_seed(3)
    model(torch.randn(2, 4))
    assert torch.equal(after_trace, torch.rand(3))
