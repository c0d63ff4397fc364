"""The documents of the scale section: graphs of about 2k to 100k nodes whose open modules hold
thousands of children.

- ``residual``: :class:`ResidualStack`, an ``nn.Sequential`` of ``blocks`` residual blocks
  (``x + relu(fc(x))``, 5 nodes each: two parameters and three ops), so the model's one open
  module holds every block: 10,000 blocks are 50,002 nodes and 20,001 module calls.
- ``llama``: a Hugging Face ``LlamaForCausalLM`` with small widths on the meta device (no
  weights allocated), traced on meta ``input_ids`` of 16 tokens; 70 nodes per layer, so its
  ``LlamaModel`` holds ``layers`` decoder layers (1,450 layers are about 100k nodes).

:data:`SIZES` names the cases by their approximate node count; every builder returns the traced
document as a dict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

__all__ = ["SIZES", "SMOKE_SIZES", "ResidualStack", "llama_document", "residual_document"]


class ResidualBlock(nn.Module):
    """``x + relu(fc(x))``: one module call with a child call, two parameters and three ops."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.relu(self.fc(x))


class ResidualStack(nn.Sequential):
    """``blocks`` :class:`ResidualBlock` in one ``nn.Sequential``: one open module, many children."""

    def __init__(self, blocks: int, width: int = 8) -> None:
        super().__init__(*(ResidualBlock(width) for _ in range(blocks)))


def residual_document(blocks: int) -> dict[str, Any]:
    """The traced document of a :class:`ResidualStack` of ``blocks`` blocks (5 nodes each)."""
    import vista_core

    torch.manual_seed(0)
    model = ResidualStack(blocks).eval()
    with torch.no_grad():
        document: dict[str, Any] = vista_core.trace(model, (torch.randn(1, 8),)).to_dict()
    return document


def llama_document(layers: int) -> dict[str, Any]:
    """The traced document of a small-width Llama of ``layers`` layers on the meta device."""
    from transformers import LlamaConfig, LlamaForCausalLM

    import vista_core

    config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=layers, num_attention_heads=4,
                         num_key_value_heads=2, vocab_size=1000, max_position_embeddings=64)
    with torch.device("meta"):
        model = LlamaForCausalLM(config).eval()
        input_ids = torch.randint(0, config.vocab_size, (1, 16))
    with torch.no_grad():
        document: dict[str, Any] = vista_core.trace(model, (), kwargs={"input_ids": input_ids}).to_dict()
    return document


#: Case name → (model, approximate nodes, builder of the document).
SIZES: dict[str, tuple[str, int, Callable[[], dict[str, Any]]]] = {
    "residual_2k": ("residual", 2_000, lambda: residual_document(400)),
    "residual_10k": ("residual", 10_000, lambda: residual_document(2_000)),
    "residual_50k": ("residual", 50_000, lambda: residual_document(10_000)),
    "llama_2k": ("llama", 2_000, lambda: llama_document(28)),
    "llama_10k": ("llama", 10_000, lambda: llama_document(143)),
    "llama_50k": ("llama", 50_000, lambda: llama_document(714)),
    "llama_100k": ("llama", 100_000, lambda: llama_document(1_450)),
}

#: What CI's benchmarks_smoke affords: the same code paths at small size.
SMOKE_SIZES: dict[str, tuple[str, int, Callable[[], dict[str, Any]]]] = {
    "residual_smoke": ("residual", 1_000, lambda: residual_document(200)),
    "llama_smoke": ("llama", 500, lambda: llama_document(6)),
}
