"""ATen ops torch-mlir cannot lower, rewritten in ops it can, for torch.export's decompositions.

`nn.TransformerEncoderLayer` in eval mode under `no_grad` takes a fused fast path,
`aten._transformer_encoder_layer_fwd`, which torch-mlir has no lowering for; it is rewritten
here as the layer computes it (attention, residuals, layer norms, feed-forward).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

aten = torch.ops.aten


def _self_attention(
    x: torch.Tensor,
    num_heads: int,
    qkv_weight: torch.Tensor,
    qkv_bias: torch.Tensor,
    proj_weight: torch.Tensor,
    proj_bias: torch.Tensor,
) -> torch.Tensor:
    batch, length, embed = x.shape
    head = embed // num_heads
    q, k, v = F.linear(x, qkv_weight, qkv_bias).chunk(3, dim=-1)
    q, k, v = (t.reshape(batch, length, num_heads, head).transpose(1, 2) for t in (q, k, v))
    scores = torch.matmul(q, k.transpose(-2, -1)) / head**0.5
    attended = torch.matmul(torch.softmax(scores, dim=-1), v)
    return F.linear(attended.transpose(1, 2).reshape(batch, length, embed), proj_weight, proj_bias)


def transformer_encoder_layer_fwd(
    src: torch.Tensor,
    embed_dim: int,
    num_heads: int,
    qkv_weight: torch.Tensor,
    qkv_bias: torch.Tensor,
    proj_weight: torch.Tensor,
    proj_bias: torch.Tensor,
    use_gelu: bool,
    norm_first: bool,
    eps: float,
    norm_weight_1: torch.Tensor,
    norm_bias_1: torch.Tensor,
    norm_weight_2: torch.Tensor,
    norm_bias_2: torch.Tensor,
    ffn_weight_1: torch.Tensor,
    ffn_bias_1: torch.Tensor,
    ffn_weight_2: torch.Tensor,
    ffn_bias_2: torch.Tensor,
    mask: torch.Tensor | None = None,
    mask_type: int | None = None,
) -> Any:
    """The fused layer (batch-first, no mask) in plain ops; masked forms are left as they are."""
    if mask is not None or src.dim() != 3:
        return NotImplemented
    shape = [embed_dim]

    def norm1(t: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(t, shape, norm_weight_1, norm_bias_1, eps)

    def norm2(t: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(t, shape, norm_weight_2, norm_bias_2, eps)

    def attention(t: torch.Tensor) -> torch.Tensor:
        return _self_attention(t, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias)

    def feed_forward(t: torch.Tensor) -> torch.Tensor:
        hidden = F.linear(t, ffn_weight_1, ffn_bias_1)
        hidden = F.gelu(hidden) if use_gelu else F.relu(hidden)
        return F.linear(hidden, ffn_weight_2, ffn_bias_2)

    if norm_first:
        x = src + attention(norm1(src))
        return x + feed_forward(norm2(x))
    x = norm1(src + attention(src))
    return norm2(x + feed_forward(x))


DECOMPOSITIONS: dict[Any, Callable[..., Any]] = {
    aten._transformer_encoder_layer_fwd.default: transformer_encoder_layer_fwd,
}
