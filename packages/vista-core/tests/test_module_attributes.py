"""Public scalar attributes of modules whose extra_repr says nothing (Hugging Face layers)."""

from __future__ import annotations

import torch
from torch import nn

import vista_core


class Attention(nn.Module):
    """Keeps its config as plain attributes and has no extra_repr, as Hugging Face layers do."""

    def __init__(self) -> None:
        super().__init__()
        self.num_attention_heads = 2
        self.head_dim = 4
        self.scaling = 0.5
        self.is_causal = True
        self.position_embedding_type = "absolute"
        self.dropout_prob = None  # unset: left out
        self.name_or_path = ""  # unset: left out
        self._private = 3
        self.table = [1, 2]  # not a scalar
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x) * self.scaling


def _calls(graph: vista_core.Graph) -> dict[str, vista_core.ModuleCall]:
    return {m.path: m for m in graph.modules}


def test_a_module_without_extra_repr_records_its_public_scalars_in_order() -> None:
    graph = vista_core.trace(Attention(), torch.randn(1, 8))
    root = _calls(graph)[""]
    assert [(a.name, a.value) for a in root.attributes] == [
        ("num_attention_heads", "2"), ("head_dim", "4"), ("scaling", "0.5"), ("is_causal", "True"),
        ("position_embedding_type", "'absolute'"),
    ]


def test_a_module_with_extra_repr_records_none() -> None:
    graph = vista_core.trace(Attention(), torch.randn(1, 8))
    proj = _calls(graph)["proj"]
    assert proj.extra_repr.startswith("in_features=8")
    assert proj.attributes == ()


def test_attributes_round_trip_and_validate() -> None:
    graph = vista_core.trace(Attention(), torch.randn(1, 8))
    data = graph.to_dict()
    root = data["modules"][0]
    assert root["attributes"][0] == {"name": "num_attention_heads", "value": "2"}
    assert "attributes" not in data["modules"][1]
    vista_core.validate_document(data)
    assert vista_core.Graph.from_dict(data).modules[0].attributes == graph.modules[0].attributes


def test_long_values_are_cut() -> None:
    model = Attention()
    model.position_embedding_type = "x" * 500
    graph = vista_core.trace(model, torch.randn(1, 8))
    value = next(a.value for a in graph.modules[0].attributes if a.name == "position_embedding_type")
    assert len(value) <= 80
