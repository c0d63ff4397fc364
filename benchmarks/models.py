"""The models of the trace-cost benchmark, each with the inputs every tool receives.

- ``bert_base``: Hugging Face ``BertModel(BertConfig())`` (BERT-base sizes, random weights),
  sequence 128, batch 1.
- ``gpt2_12`` / ``gpt2_24``: ``GPT2Model(GPT2Config(n_layer=12 | 24))``, sequence 128.
- ``resnet50_like``: a hand-written ResNet-50-sized CNN (bottleneck blocks [3, 4, 6, 3],
  BatchNorm, 224×224 input), :class:`BottleneckCNN`.
- ``deep_stack_48``: 48 identical pre-norm MLP blocks, :class:`DeepStack`.

Every builder seeds torch, puts the model in eval mode and returns a :class:`~benchmarks._case.Case`.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from ._case import Case

__all__ = [
    "TRACE_MODELS",
    "BottleneckCNN",
    "DeepStack",
    "bert_base",
    "deep_stack_48",
    "gpt2",
    "resnet50_like",
]

SEQUENCE = 128


class Bottleneck(nn.Module):
    """1×1 → 3×3 → 1×1 convolutions with BatchNorm, and a projected shortcut when the shape changes."""

    expansion = 4

    def __init__(self, in_channels: int, width: int, stride: int) -> None:
        super().__init__()
        out_channels = width * self.expansion
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.downsample: nn.Module | None = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        result: torch.Tensor = self.relu(out + identity)
        return result


class BottleneckCNN(nn.Module):
    """A ResNet-50-sized image classifier: stem, four stages of bottleneck blocks, pooled head."""

    def __init__(self, layers: tuple[int, ...] = (3, 4, 6, 3), num_classes: int = 1000) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        stages: list[nn.Module] = []
        in_channels = 64
        for index, (blocks, width) in enumerate(zip(layers, (64, 128, 256, 512))):
            stride = 1 if index == 0 else 2
            stage: list[nn.Module] = []
            for block in range(blocks):
                stage.append(Bottleneck(in_channels, width, stride if block == 0 else 1))
                in_channels = width * Bottleneck.expansion
            stages.append(nn.Sequential(*stage))
        self.stages = nn.Sequential(*stages)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(in_channels, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stages(self.stem(x))
        logits: torch.Tensor = self.fc(torch.flatten(self.pool(x), 1))
        return logits


class StackBlock(nn.Module):
    """Pre-norm residual MLP block: ``x + W2 gelu(W1 layernorm(x))``."""

    def __init__(self, width: int, hidden: int) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.act = nn.GELU()
        self.down = nn.Linear(hidden, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        update: torch.Tensor = self.down(self.act(self.up(self.norm(x))))
        return x + update


class DeepStack(nn.Module):
    """``depth`` identical :class:`StackBlock` s in a ``ModuleList``, then a final norm."""

    def __init__(self, depth: int = 48, width: int = 256, hidden: int = 1024) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(StackBlock(width, hidden) for _ in range(depth))
        self.norm = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        out: torch.Tensor = self.norm(x)
        return out


def _token_ids(vocab_size: int, sequence: int = SEQUENCE) -> torch.Tensor:
    return torch.randint(0, vocab_size, (1, sequence), generator=torch.Generator().manual_seed(0))


def bert_base() -> Case:
    """``BertModel(BertConfig())``: 12 layers, hidden 768, random weights; input_ids (1, 128)."""
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig()
    model: nn.Module = BertModel(config)
    return Case("BERT-base", model.eval(), (_token_ids(config.vocab_size),))


def gpt2(layers: int) -> Case:
    """``GPT2Model(GPT2Config(n_layer=layers))``, random weights; input_ids (1, 128)."""
    from transformers import GPT2Config, GPT2Model

    torch.manual_seed(0)
    config = GPT2Config(n_layer=layers)
    model: nn.Module = GPT2Model(config)
    return Case(f"GPT-2 {layers} layers", model.eval(), (_token_ids(config.vocab_size),))


def resnet50_like() -> Case:
    """:class:`BottleneckCNN` (25.6 M parameters); one 3×224×224 image."""
    torch.manual_seed(0)
    image = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(0))
    return Case("ResNet-50-like CNN", BottleneckCNN().eval(), (image,))


def deep_stack_48() -> Case:
    """:class:`DeepStack` of 48 blocks (width 256, hidden 1024); input (1, 128, 256)."""
    torch.manual_seed(0)
    x = torch.randn(1, SEQUENCE, 256, generator=torch.Generator().manual_seed(0))
    return Case("Deep stack 48 blocks", DeepStack(48).eval(), (x,))


#: The trace-cost models, in the order of the results table.
TRACE_MODELS: dict[str, Callable[[], Case]] = {
    "bert_base": bert_base,
    "gpt2_12": lambda: gpt2(12),
    "gpt2_24": lambda: gpt2(24),
    "resnet50_like": resnet50_like,
    "deep_stack_48": deep_stack_48,
}
