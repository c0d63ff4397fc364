"""Diff snapshots: what vista_core.diff reports for known pairs (a change of a snapshot is a
change of what users see: review it like code), and every known model compared with a second
trace of itself is equal.

Update with: nox -s integration -- --snapshot-update
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from known_models import KNOWN_MODELS, Case
from syrupy.assertion import SnapshotAssertion

import vista_core


def _capture(build: Callable[[], tuple[Any, Any, dict[str, Any]]]) -> vista_core.Graph:
    model, inputs, kwargs = build()
    return vista_core.capture(model, inputs, kwargs=kwargs).graph


@pytest.mark.parametrize("name", sorted(KNOWN_MODELS))
def test_two_traces_of_one_known_model_are_equal(name: str) -> None:
    case: Case = KNOWN_MODELS[name]
    first, second = _capture(case.build), _capture(case.build)
    result = vista_core.diff(first, second)
    assert result.equal, result.summary()
    assert len(result.node_matches) == len(first.nodes)
    vista_core.validate_diff_document(result.to_json())


def _gpt2(layers: int) -> vista_core.Graph:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=100, n_embd=32, n_layer=layers, n_head=4, n_positions=32,
                        bos_token_id=0, eos_token_id=0, use_cache=False)
    return vista_core.trace(GPT2LMHeadModel(config).eval(), (), kwargs={"input_ids": torch.arange(8)[None]})


def _bert(training: bool) -> vista_core.Graph:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=32)
    ids = torch.arange(8)[None]
    model = BertModel(config).train(training)
    return vista_core.trace(model, (), kwargs={"input_ids": ids, "attention_mask": torch.ones_like(ids)})


PAIRS: dict[str, Callable[[], tuple[vista_core.Graph, vista_core.Graph]]] = {
    "gpt2_2_vs_3_layers": lambda: (_gpt2(2), _gpt2(3)),
    "bert_train_vs_eval": lambda: (_bert(True), _bert(False)),
}


def _shown(result: vista_core.GraphDiff) -> dict[str, Any]:
    modules = {m.id: m for m in result.union.modules}
    nodes = {n.id: n for n in result.union.nodes}

    def what(change: vista_core.Change) -> str:
        if change.element == "module":
            return modules[change.id].path or "(model)"
        if change.element == "node":
            node = nodes[change.id]
            return f"{modules[node.module].path or '(model)'}: {node.kind} {node.label}"
        source, target = (nodes[end.split(":")[0]].label for end in change.id.split("->"))
        return f"{source} -> {target}"

    return {
        "summary": result.summary().splitlines(),
        "changes": [{"element": c.element, "id": c.id, "status": c.status, "what": what(c),
                     "fields": [[f.field, f.a, f.b] for f in c.fields]} for c in result.changes],
    }


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_diff_snapshot(name: str, snapshot: SnapshotAssertion) -> None:
    a, b = PAIRS[name]()
    result = vista_core.diff(a, b)
    vista_core.validate_diff_document(result.to_json())
    assert _shown(result) == snapshot
