"""The demo model shipped with vista-jupyter: a tiny vision transformer, written by hand.

Small enough to trace in a blink with random weights, and varied enough to show what the
viewer does: a convolutional stem with a residual connection, a patch embedding with a
class token and position embeddings, four identical transformer blocks (folded "×4"), each
with hand-written multi-head attention and an MLP, both with residual connections, and a
classification head. Nothing is downloaded.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

__all__ = ["TinyViT", "demo_inputs", "demo_model"]


class ResidualConvStem(nn.Module):
    """Two 3×3 convolutions with batch norm, added back to their input."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class PatchEmbedding(nn.Module):
    """Cut the image into patches, project each to a token, prepend a class token."""

    def __init__(self, channels: int, dim: int, patch: int, image: int) -> None:
        super().__init__()
        self.proj = nn.Conv2d(channels, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.position = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, dim) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        cls = self.cls_token.expand(tokens.shape[0], -1, -1)
        return torch.cat([cls, tokens], dim=1) + self.position


class SelfAttention(nn.Module):
    """Multi-head scaled dot-product self-attention, spelled out."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, dim = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.reshape(batch, length, self.heads, dim // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(dim // self.heads)
        mixed = scores.softmax(dim=-1) @ v
        out: torch.Tensor = self.out(mixed.transpose(1, 2).reshape(batch, length, dim))
        return out


class MLP(nn.Module):
    """Two linear layers with a GELU between them."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.fc2(F.gelu(self.fc1(x)))
        return out


class Block(nn.Module):
    """A pre-norm transformer block: attention and MLP, each with a residual connection."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attention = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = MLP(dim, 4 * dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        out: torch.Tensor = x + self.mlp(self.norm2(x))
        return out


class TinyViT(nn.Module):
    """A vision transformer for 32×32 RGB images and 10 classes, about 124 k parameters."""

    def __init__(self, *, image: int = 32, patch: int = 8, dim: int = 48, heads: int = 4, depth: int = 4,
                 classes: int = 10) -> None:
        super().__init__()
        self.stem = ResidualConvStem(3)
        self.embed = PatchEmbedding(3, dim, patch, image)
        self.blocks = nn.Sequential(*(Block(dim, heads) for _ in range(depth)))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        tokens = self.blocks(self.embed(self.stem(images)))
        logits: torch.Tensor = self.head(self.norm(tokens[:, 0]))
        return logits


def demo_model() -> TinyViT:
    """The demo model with random weights (seeded, so every run shows the same graph)."""
    generator_state = torch.random.get_rng_state()
    try:
        torch.manual_seed(0)
        return TinyViT().eval()
    finally:
        torch.random.set_rng_state(generator_state)


def demo_inputs() -> torch.Tensor:
    """A batch of two random 32×32 RGB images for :func:`demo_model`."""
    return torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(0))
