"""A zoo of Hugging Face architectures built from tiny configs (random weights, no downloads).

Each :class:`Architecture` names a model class and a config class of the installed
``transformers`` package, the config's keyword arguments (few layers, hidden size 32), and the
kind of dummy inputs it takes. :func:`build` returns the model in eval mode and a dict of
keyword inputs, so ``model(**inputs)`` is the plain forward pass::

    from benchmarks.hf_zoo import ARCHITECTURES, build
    for arch in ARCHITECTURES:
        model, inputs = build(arch)

The coverage benchmark runs every tool on every entry; integration tests may reuse it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import torch

__all__ = ["ARCHITECTURES", "Architecture", "build", "by_name"]

InputKind = Literal["text", "seq2seq", "image", "text+image", "audio", "speech2seq", "layout"]

VOCAB = 128
SEQ = 16
DECODER_SEQ = 8
IMAGE = 32

# The sizes most configs share: 2 layers, hidden 32, 2 heads, feed-forward 64.
_BERTLIKE: dict[str, Any] = {"vocab_size": VOCAB, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
             "intermediate_size": 64, "max_position_embeddings": 64}
_LLAMALIKE: dict[str, Any] = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
              "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 64}
_BARTLIKE: dict[str, Any] = {"vocab_size": VOCAB, "d_model": 32, "encoder_layers": 2, "decoder_layers": 2,
             "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64,
             "decoder_ffn_dim": 64, "max_position_embeddings": 64, "pad_token_id": 0, "bos_token_id": 1,
             "eos_token_id": 2, "decoder_start_token_id": 1}
_VITLIKE: dict[str, Any] = {"image_size": IMAGE, "patch_size": 8, "hidden_size": 32, "num_hidden_layers": 2,
            "num_attention_heads": 2, "intermediate_size": 64}


@dataclass(frozen=True)
class Architecture:
    """One Hugging Face architecture: ``model_class(config_class(**config))`` with ``inputs``."""

    name: str
    model_class: str
    config_class: str
    config: Mapping[str, Any] = field(default_factory=dict)
    inputs: InputKind = "text"


def _a(name: str, model: str, config: str, inputs: InputKind = "text", **kw: Any) -> Architecture:
    return Architecture(name, model, config, kw, inputs)


ARCHITECTURES: tuple[Architecture, ...] = (
    # encoders
    _a("BERT", "BertModel", "BertConfig", **_BERTLIKE),
    _a("RoBERTa", "RobertaModel", "RobertaConfig", **_BERTLIKE),
    _a("DistilBERT", "DistilBertModel", "DistilBertConfig", vocab_size=VOCAB, dim=32, n_layers=2, n_heads=2,
       hidden_dim=64, max_position_embeddings=64),
    _a("ALBERT", "AlbertModel", "AlbertConfig", **_BERTLIKE, embedding_size=16),
    _a("ELECTRA", "ElectraModel", "ElectraConfig", **_BERTLIKE, embedding_size=16),
    _a("DeBERTa", "DebertaModel", "DebertaConfig", **_BERTLIKE, relative_attention=True,
       pos_att_type=["c2p", "p2c"]),
    _a("DeBERTa-v2", "DebertaV2Model", "DebertaV2Config", **_BERTLIKE, relative_attention=True,
       pos_att_type=["c2p", "p2c"]),
    _a("XLNet", "XLNetModel", "XLNetConfig", vocab_size=VOCAB, d_model=32, n_layer=2, n_head=2, d_inner=64),
    _a("XLM-RoBERTa", "XLMRobertaModel", "XLMRobertaConfig", **_BERTLIKE),
    _a("Funnel", "FunnelModel", "FunnelConfig", vocab_size=VOCAB, block_sizes=[1, 1], d_model=32, n_head=2,
       d_head=16, d_inner=64),
    _a("Longformer", "LongformerModel", "LongformerConfig", **_BERTLIKE, attention_window=[4, 4]),
    _a("BigBird", "BigBirdModel", "BigBirdConfig", **_BERTLIKE, attention_type="original_full"),
    _a("LayoutLM", "LayoutLMModel", "LayoutLMConfig", "layout", **_BERTLIKE, max_2d_position_embeddings=64),
    _a("MPNet", "MPNetModel", "MPNetConfig", **_BERTLIKE),
    _a("ConvBERT", "ConvBertModel", "ConvBertConfig", **_BERTLIKE, embedding_size=32),
    _a("MobileBERT", "MobileBertModel", "MobileBertConfig", vocab_size=VOCAB, hidden_size=32,
       num_hidden_layers=2, num_attention_heads=2, intermediate_size=32, embedding_size=16,
       intra_bottleneck_size=16, true_hidden_size=16, max_position_embeddings=64),
    _a("SqueezeBERT", "SqueezeBertModel", "SqueezeBertConfig", **_BERTLIKE, embedding_size=32),
    _a("Nystromformer", "NystromformerModel", "NystromformerConfig", **_BERTLIKE, num_landmarks=4,
       segment_means_seq_len=SEQ),
    _a("ERNIE", "ErnieModel", "ErnieConfig", **_BERTLIKE),
    # decoders
    _a("GPT-2", "GPT2Model", "GPT2Config", vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=2,
       bos_token_id=1, eos_token_id=2),
    _a("GPT-Neo", "GPTNeoModel", "GPTNeoConfig", vocab_size=VOCAB, max_position_embeddings=64, hidden_size=32,
       num_layers=2, num_heads=2, attention_types=[[["global", "local"], 1]], window_size=8,
       intermediate_size=64),
    _a("GPT-J", "GPTJModel", "GPTJConfig", vocab_size=VOCAB, n_positions=64, n_embd=32, n_layer=2, n_head=2,
       rotary_dim=8, bos_token_id=1, eos_token_id=2),
    _a("GPT-NeoX", "GPTNeoXModel", "GPTNeoXConfig", vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
       num_attention_heads=2, intermediate_size=64, max_position_embeddings=64),
    _a("OPT", "OPTModel", "OPTConfig", vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, ffn_dim=64,
       num_attention_heads=2, max_position_embeddings=64, word_embed_proj_dim=32),
    _a("BLOOM", "BloomModel", "BloomConfig", vocab_size=VOCAB, hidden_size=32, n_layer=2, n_head=2),
    _a("Llama", "LlamaModel", "LlamaConfig", **_LLAMALIKE),
    _a("Mistral", "MistralModel", "MistralConfig", **_LLAMALIKE),
    _a("Mixtral", "MixtralModel", "MixtralConfig", **_LLAMALIKE, num_local_experts=4, num_experts_per_tok=2),
    _a("Qwen2", "Qwen2Model", "Qwen2Config", **_LLAMALIKE),
    _a("Qwen2-MoE", "Qwen2MoeModel", "Qwen2MoeConfig", **_LLAMALIKE, num_experts=4, num_experts_per_tok=2,
       moe_intermediate_size=32, shared_expert_intermediate_size=32),
    _a("Qwen3", "Qwen3Model", "Qwen3Config", **_LLAMALIKE, head_dim=16),
    _a("Gemma", "GemmaModel", "GemmaConfig", **_LLAMALIKE, head_dim=16),
    _a("Gemma2", "Gemma2Model", "Gemma2Config", **_LLAMALIKE, head_dim=16, sliding_window=8),
    _a("Phi", "PhiModel", "PhiConfig", vocab_size=VOCAB, hidden_size=32, intermediate_size=64,
       num_hidden_layers=2, num_attention_heads=2, max_position_embeddings=64),
    _a("Phi-3", "Phi3Model", "Phi3Config", **_LLAMALIKE, pad_token_id=0),
    _a("StableLM", "StableLmModel", "StableLmConfig", **_LLAMALIKE),
    _a("OLMo", "OlmoModel", "OlmoConfig", **_LLAMALIKE, pad_token_id=0),
    _a("Falcon", "FalconModel", "FalconConfig", vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2,
       num_attention_heads=2),
    _a("MPT", "MptModel", "MptConfig", vocab_size=VOCAB, d_model=32, n_heads=2, n_layers=2, max_seq_len=64,
       expansion_ratio=2),
    _a("CodeGen", "CodeGenModel", "CodeGenConfig", vocab_size=VOCAB, n_positions=64, n_ctx=64, n_embd=32,
       n_layer=2, n_head=2, rotary_dim=8, bos_token_id=1, eos_token_id=2),
    # encoder-decoders
    _a("T5", "T5Model", "T5Config", "seq2seq", vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2,
       num_heads=2, decoder_start_token_id=0),
    _a("BART", "BartModel", "BartConfig", "seq2seq", **_BARTLIKE),
    _a("mBART", "MBartModel", "MBartConfig", "seq2seq", **_BARTLIKE),
    _a("Pegasus", "PegasusModel", "PegasusConfig", "seq2seq", **_BARTLIKE),
    _a("Marian", "MarianModel", "MarianConfig", "seq2seq", **_BARTLIKE),
    _a("BlenderbotSmall", "BlenderbotSmallModel", "BlenderbotSmallConfig", "seq2seq", **_BARTLIKE),
    # vision
    _a("ViT", "ViTModel", "ViTConfig", "image", **_VITLIKE),
    _a("DeiT", "DeiTModel", "DeiTConfig", "image", **_VITLIKE),
    _a("BEiT", "BeitModel", "BeitConfig", "image", **_VITLIKE),
    _a("DINOv2", "Dinov2Model", "Dinov2Config", "image", image_size=IMAGE, patch_size=8, hidden_size=32,
       num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2),
    _a("Swin", "SwinModel", "SwinConfig", "image", image_size=IMAGE, patch_size=2, embed_dim=16, depths=[1, 1],
       num_heads=[1, 2], window_size=4),
    _a("ConvNeXt", "ConvNextModel", "ConvNextConfig", "image", hidden_sizes=[8, 16], depths=[1, 1], num_stages=2),
    _a("ResNet", "ResNetModel", "ResNetConfig", "image", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
       layer_type="bottleneck"),
    _a("RegNet", "RegNetModel", "RegNetConfig", "image", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
       groups_width=8),
    _a("MobileViT", "MobileViTModel", "MobileViTConfig", "image", image_size=IMAGE, hidden_sizes=[16, 24, 32],
       neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_attention_heads=2),
    _a("Segformer", "SegformerModel", "SegformerConfig", "image", num_encoder_blocks=2, depths=[1, 1],
       sr_ratios=[2, 1], hidden_sizes=[8, 16], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2],
       mlp_ratios=[2, 2], decoder_hidden_size=16),
    _a("PoolFormer", "PoolFormerModel", "PoolFormerConfig", "image", num_encoder_blocks=2, depths=[1, 1],
       hidden_sizes=[8, 16], patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1]),
    # multi-modal and audio
    _a("CLIP", "CLIPModel", "CLIPConfig", "text+image", projection_dim=16,
       text_config={"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                    "num_attention_heads": 2, "max_position_embeddings": 32},
       vision_config={"image_size": IMAGE, "patch_size": 8, "hidden_size": 32, "intermediate_size": 64,
                      "num_hidden_layers": 2, "num_attention_heads": 2}),
    _a("Whisper", "WhisperModel", "WhisperConfig", "speech2seq", vocab_size=VOCAB, num_mel_bins=8, d_model=32,
       encoder_layers=2, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2,
       encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16, max_target_positions=32,
       pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1),
    _a("Wav2Vec2", "Wav2Vec2Model", "Wav2Vec2Config", "audio", hidden_size=32, num_hidden_layers=2,
       num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
       num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2),
    _a("HuBERT", "HubertModel", "HubertConfig", "audio", hidden_size=32, num_hidden_layers=2,
       num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
       num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2),
)


def by_name(name: str) -> Architecture:
    """The architecture called ``name`` (as in the results table, e.g. ``"GPT-2"``)."""
    for arch in ARCHITECTURES:
        if arch.name == name:
            return arch
    known = ", ".join(a.name for a in ARCHITECTURES)
    raise KeyError(f"Unknown architecture {name!r}; pick one of: {known}.")


def _dummy_inputs(arch: Architecture, config: Any) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)

    def ids(length: int) -> torch.Tensor:
        return torch.randint(3, VOCAB, (1, length), generator=g)

    def image() -> torch.Tensor:
        return torch.randn(1, 3, IMAGE, IMAGE, generator=g)

    if arch.inputs == "text":
        return {"input_ids": ids(SEQ)}
    if arch.inputs == "layout":
        corners = torch.randint(0, 32, (1, SEQ, 2), generator=g)
        return {"input_ids": ids(SEQ), "bbox": torch.cat([corners, corners + 16], dim=-1)}
    if arch.inputs == "seq2seq":
        return {"input_ids": ids(SEQ), "decoder_input_ids": ids(DECODER_SEQ)}
    if arch.inputs == "image":
        return {"pixel_values": image()}
    if arch.inputs == "text+image":
        return {"input_ids": ids(SEQ), "pixel_values": image()}
    if arch.inputs == "audio":
        return {"input_values": torch.randn(1, 1600, generator=g)}
    if arch.inputs == "speech2seq":
        frames = 2 * int(config.max_source_positions)
        return {"input_features": torch.randn(1, int(config.num_mel_bins), frames, generator=g),
                "decoder_input_ids": ids(DECODER_SEQ)}
    raise ValueError(f"Unknown input kind {arch.inputs!r} of architecture {arch.name!r}.")


def build(arch: Architecture | str) -> tuple[torch.nn.Module, dict[str, torch.Tensor]]:
    """Build ``arch`` (an :class:`Architecture` or its name) with seeded random weights, in
    eval mode, and its dummy keyword inputs."""
    import transformers

    if isinstance(arch, str):
        arch = by_name(arch)
    config = getattr(transformers, arch.config_class)(**arch.config)
    torch.manual_seed(0)
    model = getattr(transformers, arch.model_class)(config).eval()
    return model, _dummy_inputs(arch, config)
