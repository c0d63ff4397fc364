"""vista_core.diff on real pairs: Hugging Face models from small configs (random weights, nothing
downloaded) and a failed trace against a finished one."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch
from torch import nn

import vista_core
from vista_core import GraphDiff, diff

transformers = pytest.importorskip("transformers")

IDS = torch.randint(0, 100, (1, 8), generator=torch.Generator().manual_seed(0))


def _trace(model: nn.Module, **kwargs: Any) -> vista_core.Graph:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vista_core.trace(model, (), kwargs=kwargs or {"input_ids": IDS})


def _gpt2(layers: int) -> nn.Module:
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=100, n_embd=32, n_layer=layers, n_head=4, n_positions=32,
                                     bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(config).eval()


def _llama(hidden: int) -> nn.Module:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(vocab_size=100, hidden_size=hidden, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    return transformers.LlamaForCausalLM(config).eval()


def _status(result: GraphDiff, element: str, status: str) -> list[vista_core.Change]:
    return [c for c in result.changes if c.element == element and c.status == status]


def _path(result: GraphDiff, module_id: str) -> str:
    return next(m.path for m in result.union.modules if m.id == module_id)


def test_gpt2_with_a_third_layer_is_that_layer_added_and_everything_else_matched() -> None:
    a, b = _trace(_gpt2(2)), _trace(_gpt2(3))
    result = diff(a, b)
    added = _status(result, "module", "added")
    tops = [c for c in added if _path(result, c.id).count(".") == 2]
    assert [_path(result, c.id) for c in tops] == ["transformer.h.2"]
    assert all(_path(result, c.id).startswith("transformer.h.2") for c in added)
    assert _status(result, "module", "removed") == [] and _status(result, "node", "removed") == []
    assert len(result.node_matches) == len(a.nodes) and len(result.module_matches) == len(a.modules)
    assert len(result.union.modules) == len(b.modules)
    summary = result.summary()
    assert "1 module call added under transformer.h: GPT2Block (transformer.h.2)" in summary
    assert "parameters 29,696 → 42,400" in summary
    vista_core.validate_diff_document(result.to_json())


def test_llama_with_another_hidden_size_has_the_same_structure_and_shapes_changed_everywhere() -> None:
    a, b = _trace(_llama(32)), _trace(_llama(48))
    result = diff(a, b)
    assert {c.status for c in result.changes} == {"changed"}
    assert len(result.module_matches) == len(a.modules) == len(b.modules)
    assert len(result.node_matches) == len(a.nodes) == len(b.nodes)
    changed_layers = {_path(result, c.id) for c in _status(result, "module", "changed")}
    assert {"model.layers.0", "model.layers.1", "model.layers.0.self_attn", "model.norm"} <= changed_layers
    summary = result.summary()
    assert "outputs[0].shape 1×8×32 → 1×8×48" in summary and "places" in summary
    assert summary.splitlines()[1].startswith("Same structure: every module call and node is matched")
    # No fold hides a change: every union block is made of unchanged calls only.
    assert result.union.repeated_blocks == ()


def test_bert_in_train_and_eval_differs_only_in_its_dropout() -> None:
    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                     intermediate_size=64, max_position_embeddings=32)
    model = transformers.BertModel(config)
    inputs = {"input_ids": IDS, "attention_mask": torch.ones_like(IDS)}
    result = diff(_trace(model.train(), **inputs), _trace(model.eval(), **inputs))
    assert not result.equal
    assert {c.status for c in result.changes} == {"changed"}
    changed_ops = {result.union.node(c.id).label for c in _status(result, "node", "changed")}
    # Vista records F.dropout in both modes: eval shows as its training flag (and SDPA's dropout_p).
    assert changed_ops <= {"dropout", "scaled_dot_product_attention"} and "dropout" in changed_ops
    dropout = [c for c in _status(result, "node", "changed") if result.union.node(c.id).label == "dropout"]
    assert len(dropout) == 5
    assert all(any(f.a == "training=True" and f.b == "training=False" for f in c.fields) for c in dropout)
    assert "training=True → training=False (dropout) in 5 places" in result.summary()
    assert diff(_trace(model.eval(), **inputs), _trace(model.eval(), **inputs)).equal


class _Net(nn.Module):
    def __init__(self, bad: bool = False) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4), nn.Linear(5 if bad else 4, 4), nn.Linear(4, 4)])
        self.head = nn.Linear(4, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = torch.relu(block(x))
        return self.head(x)


def test_a_failed_trace_against_a_finished_one_adds_the_rest_after_the_failure() -> None:
    x = torch.randn(2, 4)
    failed = vista_core.capture(_Net(bad=True), (x,))
    assert isinstance(failed.exception, RuntimeError) and failed.graph.failed
    finished = vista_core.trace(_Net(), (x,))
    result = diff(failed.graph, finished)
    failing = next(c for c in result.changes if c.a == failed.graph.error.node)  # type: ignore[union-attr]
    assert failing.status == "changed"
    assert {f.field for f in failing.fields} >= {"error", "outputs[0]"}
    assert [_path(result, c.id) for c in _status(result, "module", "added")] == ["blocks.2", "head"]
    assert _status(result, "node", "removed") == []
    # Everything that ran before the failure is matched.
    assert len(result.node_matches) == len(failed.graph.nodes)
    assert result.union.error is None
    summary = result.summary()
    assert "failed True → False" in summary and "RuntimeError: mat1 and mat2" in summary
