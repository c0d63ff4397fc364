"""The registry of known models: what each is, how to build it with its inputs, and what a
trace of it must do. Data-driven tests (snapshots, browser) iterate over ``KNOWN_MODELS``.

Hugging Face models are built from small configs with random weights (nothing is
downloaded); vision models are written by hand (torchvision does not run beside the pinned
torch here).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


@dataclass(frozen=True)
class Case:
    """A model with its inputs. ``raises`` names the exception type its forward raises."""

    build: Callable[[], tuple[Any, Any, dict[str, Any]]]
    raises: type[BaseException] | None = None
    tags: frozenset[str] = field(default_factory=frozenset)


# -- hand-written models ----------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(self.act(self.fc1(x)))


class BasicBlock(nn.Module):
    def __init__(self, channels_in: int, channels: int, stride: int = 1) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels_in, channels, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or channels_in != channels:
            self.shortcut = nn.Sequential(nn.Conv2d(channels_in, channels, 1, stride, bias=False),
                                          nn.BatchNorm2d(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class TinyResNet(nn.Module):
    """A ResNet-style CNN: stem, residual stages with BatchNorm, global pooling, classifier."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.layer1 = nn.Sequential(BasicBlock(8, 8), BasicBlock(8, 8))
        self.layer2 = nn.Sequential(BasicBlock(8, 16, stride=2), BasicBlock(16, 16))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


class LSTMTagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.lstm = nn.LSTM(8, 12, num_layers=2, batch_first=True)
        self.out = nn.Linear(12, 5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        hidden, _ = self.lstm(self.embed(tokens))
        return self.out(hidden)


class SelfAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, weights = self.attn(x, x, x, need_weights=True)
        return out, weights


class DictModel(nn.Module):
    """Dict in, dict out, with a tensor nested in a list."""

    def __init__(self) -> None:
        super().__init__()
        self.image = nn.Linear(6, 4)
        self.text = nn.Embedding(20, 4)

    def forward(self, batch: dict[str, Any]) -> dict[str, torch.Tensor]:
        image = self.image(batch["image"])
        text = self.text(batch["tokens"][0]).mean(dim=1)
        return {"fused": image * text, "image": image, "text": text}


class KeywordModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, *, mask: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
        return self.proj(x).masked_fill(~mask, 0.0) * scale


class ControlFlow(nn.Module):
    """Python control flow on tensor values: only the path taken is in the graph."""

    def __init__(self) -> None:
        super().__init__()
        self.up = nn.Linear(4, 4)
        self.down = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps = 0
        while x.norm() < 10 and steps < 3:
            x = self.up(x) * 2
            steps += 1
        if x.sum() > 0:
            return self.down(x)
        return -x


class InPlace(nn.Module):
    def forward(self, x: torch.Tensor, idx: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = x.clone()
        out[idx] = y
        out.mul_(2).add_(1)
        view = out[:, :2]
        view.zero_()
        return out.relu_()


class SharedThrice(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(self.block(self.block(x)))


class FailsInCat(nn.Module):
    """Raises inside torch.cat after a few layers (a classic shape bug)."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
        self.skip = nn.Linear(6, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.encoder(x)
        s = self.skip(x)
        return torch.cat([h, s], dim=0)


# -- builders -----------------------------------------------------------------------------------

def _seeded(build: Callable[[], tuple[Any, Any, dict[str, Any]]]) -> Callable[[], tuple[Any, Any, dict[str, Any]]]:
    def wrapper() -> tuple[Any, Any, dict[str, Any]]:
        torch.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model, inputs, kwargs = build()
        if isinstance(model, nn.Module):
            model.eval()
        return model, inputs, kwargs

    return wrapper


def _hf_bert() -> tuple[Any, Any, dict[str, Any]]:
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=32)
    ids = torch.randint(0, 100, (1, 8))
    return BertModel(config), (), {"input_ids": ids, "attention_mask": torch.ones_like(ids)}


def _hf_gpt2() -> tuple[Any, Any, dict[str, Any]]:
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=100, n_embd=32, n_layer=2, n_head=4, n_positions=32,
                        bos_token_id=0, eos_token_id=0, use_cache=False)
    return GPT2LMHeadModel(config), (), {"input_ids": torch.randint(0, 100, (1, 8))}


def _hf_t5() -> tuple[Any, Any, dict[str, Any]]:
    from transformers import T5Config, T5Model

    config = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                      decoder_start_token_id=0, use_cache=False)
    return T5Model(config), (), {"input_ids": torch.randint(0, 100, (1, 8)),
                                 "decoder_input_ids": torch.randint(0, 100, (1, 4))}


def _hf_xlnet() -> tuple[Any, Any, dict[str, Any]]:
    from transformers import XLNetConfig, XLNetModel

    config = XLNetConfig(vocab_size=100, d_model=32, n_layer=2, n_head=4, d_inner=64, use_mems_eval=False)
    return XLNetModel(config), (), {"input_ids": torch.randint(0, 100, (1, 8))}


def _hf_vit() -> tuple[Any, Any, dict[str, Any]]:
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(image_size=16, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=4, intermediate_size=64)
    return ViTModel(config), (), {"pixel_values": torch.randn(1, 3, 16, 16)}


def _meta_mlp() -> tuple[Any, Any, dict[str, Any]]:
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(4096, 16384), nn.GELU(), nn.Linear(16384, 4096), nn.LayerNorm(4096))
        x = torch.randn(2, 128, 4096)
    return model, x, {}


KNOWN_MODELS: dict[str, Case] = {
    "mlp": Case(_seeded(lambda: (MLP(), torch.randn(2, 16), {}))),
    "resnet_cnn": Case(_seeded(lambda: (TinyResNet(), torch.randn(1, 3, 16, 16), {}))),
    "transformer_encoder": Case(_seeded(lambda: (
        nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), num_layers=2,
                              enable_nested_tensor=False),
        torch.randn(1, 5, 16), {}))),
    "lstm": Case(_seeded(lambda: (LSTMTagger(), torch.randint(0, 50, (2, 6)), {}))),
    "multihead_attention": Case(_seeded(lambda: (SelfAttention(), torch.randn(1, 5, 16), {}))),
    "hf_bert": Case(_seeded(_hf_bert), tags=frozenset({"hf"})),
    "hf_gpt2": Case(_seeded(_hf_gpt2), tags=frozenset({"hf"})),
    "hf_t5": Case(_seeded(_hf_t5), tags=frozenset({"hf"})),
    "hf_xlnet": Case(_seeded(_hf_xlnet), tags=frozenset({"hf"})),
    "hf_vit": Case(_seeded(_hf_vit), tags=frozenset({"hf"})),
    "dict_io": Case(_seeded(lambda: (DictModel(), ({"image": torch.randn(2, 6),
                                                    "tokens": [torch.randint(0, 20, (2, 3))]},), {}))),
    "keyword_inputs": Case(_seeded(lambda: (KeywordModel(), (torch.randn(2, 4),),
                                            {"mask": torch.tensor([[True, False, True, True]] * 2), "scale": 0.5}))),
    "control_flow": Case(_seeded(lambda: (ControlFlow(), torch.full((1, 4), 0.5), {}))),
    "in_place": Case(_seeded(lambda: (InPlace(), (torch.randn(4, 3), torch.tensor([0, 2]), torch.ones(3)), {}))),
    "shared_thrice": Case(_seeded(lambda: (SharedThrice(), torch.randn(1, 8), {}))),
    "fails_in_cat": Case(_seeded(lambda: (FailsInCat(), torch.randn(3, 6), {})), raises=RuntimeError),
    "meta_device": Case(_seeded(_meta_mlp)),
}
