"""The models the browser tests open, traced on the fly with vista-core.

Each builder returns a graph document (dict). The Hugging Face models are built from small
configs with random weights (no downloads). ``failing`` raises inside ``torch.cat``;
``hostile`` has markup for a class name and ``</script>`` in its exception message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

import vista_core

HOSTILE_CLASS = "<img src=x onerror=alert(1)>"
HOSTILE_MESSAGE = "shapes </script><script>alert(1)</script> & <b>bold</b>"


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU())
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x)).softmax(dim=-1)


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + x)


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.blocks = nn.Sequential(ResidualBlock(8), ResidualBlock(8))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.blocks(self.stem(x))), 1))


class Failing(nn.Module):
    """Concatenates tensors of mismatched widths: torch.cat raises."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 8)
        self.b = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.a(x))
        return torch.cat([h, self.b(h).unsqueeze(0)], dim=0)


def _hostile_forward(self: nn.Module, x: torch.Tensor) -> torch.Tensor:
    y = self.inner(x)
    raise ValueError(f"{HOSTILE_MESSAGE} {tuple(y.shape)}")


def _hostile_model() -> nn.Module:
    inner = type(HOSTILE_CLASS, (nn.Module,), {"forward": lambda self, x: torch.tanh(x) * 2})()
    outer = type(HOSTILE_CLASS, (nn.Module,), {"forward": _hostile_forward})()
    outer.inner = inner
    return outer


def _module(class_name: str, forward: Callable[..., torch.Tensor], **children: nn.Module) -> nn.Module:
    module = type(class_name, (nn.Module,), {"forward": forward})()
    for name, child in children.items():
        module.add_module(name, child)
    return module


def _multilingual_model() -> nn.Module:
    """Module and class names in Chinese, Cyrillic, Greek, Hangul, Japanese and Arabic."""
    encoder = _module(
        "Кодировщик",
        lambda self, x: self.Ελληνικά(self.внимание(x)),
        внимание=nn.Linear(8, 8),
        Ελληνικά=nn.ReLU(),
    )
    decoder = _module("デコーダ層", lambda self, x: torch.tanh(x))
    head = nn.Linear(8, 2)
    return _module(
        "多语言模型",
        lambda self, x: self.مخرج(self.디코더(self.编码器(x))),
        编码器=encoder,
        디코더=decoder,
        مخرج=head,
    )


def mlp() -> dict[str, Any]:
    torch.manual_seed(0)
    return vista_core.trace(MLP(), torch.randn(2, 16)).to_dict()


def cnn() -> dict[str, Any]:
    torch.manual_seed(0)
    return vista_core.trace(SmallCNN().eval(), torch.randn(1, 3, 16, 16)).to_dict()


def bert() -> dict[str, Any]:
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32)
    model = BertModel(config).eval()
    ids = torch.randint(0, 120, (1, 8))
    return vista_core.trace(model, (), kwargs={"input_ids": ids, "attention_mask": torch.ones_like(ids)}).to_dict()


def gpt2(n_layer: int = 3) -> dict[str, Any]:
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=120, n_positions=32, n_embd=32, n_layer=n_layer, n_head=2,
                        bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config).eval()
    return vista_core.trace(model, (), kwargs={"input_ids": torch.randint(0, 120, (1, 8))}).to_dict()


class GatedSteps(nn.Module):
    """A Linear in an `if` branch, then a loop of gated residual steps (glue between them)."""

    def __init__(self) -> None:
        super().__init__()
        self.pos = nn.Linear(8, 8)
        self.steps = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.pos(x) if x.sum() > -1e9 else x
        for step in self.steps:
            h = h + torch.sigmoid(step(h))
        return h


def steps() -> dict[str, Any]:
    torch.manual_seed(0)
    return vista_core.trace(GatedSteps(), torch.randn(2, 8)).to_dict()


class NormedBlocks(nn.Module):
    """Blocks with one LayerNorm module called after each (a glue module of the run)."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(8, 8), nn.GELU()) for _ in range(4))
        self.norm = nn.LayerNorm(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = self.norm(x + block(x))
        return x


def normed() -> dict[str, Any]:
    torch.manual_seed(0)
    return vista_core.trace(NormedBlocks(), torch.randn(2, 8)).to_dict()


def t5() -> dict[str, Any]:
    """A tiny T5 with an LM head: its embedding is tied to the encoder, the decoder and the head."""
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_heads=4,
                      decoder_start_token_id=0, tie_word_embeddings=True)
    model = T5ForConditionalGeneration(config).eval()
    return vista_core.trace(model, (), kwargs={"input_ids": torch.randint(0, 100, (1, 8)),
                                               "decoder_input_ids": torch.randint(0, 100, (1, 4))}).to_dict()


def whisper() -> dict[str, Any]:
    """A tiny Whisper: a convolutional audio encoder and a text decoder, side by side when open."""
    from transformers import WhisperConfig, WhisperModel

    torch.manual_seed(0)
    config = WhisperConfig(vocab_size=100, num_mel_bins=8, d_model=32, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                           decoder_ffn_dim=64, max_source_positions=16, max_target_positions=32,
                           pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    model = WhisperModel(config).eval()
    return vista_core.trace(model, (), kwargs={"input_features": torch.randn(1, 8, 32),
                                               "decoder_input_ids": torch.randint(0, 100, (1, 4))}).to_dict()


def t5_deep() -> dict[str, Any]:
    """A T5 with three encoder and three decoder blocks: wide and tall when fully open."""
    from transformers import T5Config, T5ForConditionalGeneration

    torch.manual_seed(0)
    config = T5Config(vocab_size=100, d_model=32, d_kv=8, d_ff=64, num_layers=3, num_heads=4,
                      decoder_start_token_id=0)
    model = T5ForConditionalGeneration(config).eval()
    return vista_core.trace(model, (), kwargs={"input_ids": torch.randint(0, 100, (1, 8)),
                                               "decoder_input_ids": torch.randint(0, 100, (1, 4))}).to_dict()


def llama(layers: int = 32) -> dict[str, Any]:
    """A tiny Llama with many layers: every layer reads the rotary embedding and hands a cache
    tensor out of the model, the long edges the layout draws beside the layers."""
    from transformers import LlamaConfig, LlamaModel

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=layers,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)
    model = LlamaModel(config).eval()
    return vista_core.trace(model, (), kwargs={"input_ids": torch.randint(0, 64, (1, 6))}).to_dict()


def failing() -> dict[str, Any]:
    torch.manual_seed(0)
    result = vista_core.capture(Failing(), torch.randn(3, 4))
    assert isinstance(result.exception, RuntimeError)
    return result.graph.to_dict()


def multilingual() -> dict[str, Any]:
    torch.manual_seed(0)
    return vista_core.trace(_multilingual_model(), torch.randn(2, 8)).to_dict()


def hostile() -> dict[str, Any]:
    result = vista_core.capture(_hostile_model(), torch.randn(2, 3))
    assert isinstance(result.exception, ValueError)
    return result.graph.to_dict()


BUILDERS: dict[str, Callable[[], dict[str, Any]]] = {
    "mlp": mlp,
    "cnn": cnn,
    "bert": bert,
    "gpt2": gpt2,
    "gpt2_24": lambda: gpt2(24),
    "llama_32": llama,
    "llama_4": lambda: llama(4),
    "t5": t5,
    "t5_deep": t5_deep,
    "whisper": whisper,
    "steps": steps,
    "normed": normed,
    "failing": failing,
    "hostile": hostile,
    "multilingual": multilingual,
}
