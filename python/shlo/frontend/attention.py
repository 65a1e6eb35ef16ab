"""Scaled dot-product attention as eager's CPU flash kernel computes it.

Where eager takes its flash kernel (`_scaled_dot_product_flash_attention_for_cpu`: no dropout,
4-d inputs, ATen's own choice), PyTorch's decomposition computes the math kernel instead, and
the two part where a score is NaN or masked.  The flash kernel (`FlashAttentionKernel.cpp`)
scales `q @ k.T` after the product; overwrites the scores past the diagonal of a causal mask
with -inf (a NaN there never reaches the row, where the math kernel adds -inf to it and gets
NaN); and skips a row whose maximum is -inf, which comes out 0.  Without a mask, that maximum
is taken over the vector part of the row with a NaN-propagating maximum and over the scalar
tail by `std::max`, which drops a NaN (the host's vector width,
`torch.backends.cpu.get_cpu_capability()`, sets where the tail starts): a row of -inf scores
and NaN in its tail alone is skipped.  With a mask every NaN counts.  Every other row is the
softmax the math kernel computes, NaN wherever a score is, but for 16-bit inputs, whose vector
loop takes a fast `exp` that gives 0 for `inf - inf`: a +inf score there, at a +inf maximum,
weighs 0 (in the tail, NaN).

This covers one block of keys (512, the kernel's `kv_split_size`).  Over more, the kernel keeps
a running maximum across blocks, skips the blocks before the first live one and never reads
the blocks past a causal row's diagonal; written out here, that machinery made long causal
attention much slower than the math kernel, so longer attention keeps PyTorch's decomposition
(which differs from eager where the rows above do).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten

_KEYS_PER_BLOCK = 512  # kv_split_size of every flash_attention_kernel_impl instance
_SIXTEEN_BIT = (torch.float16, torch.bfloat16)


def _lanes(dtype: torch.dtype) -> int:
    """Elements of `dtype` in one of the flash kernel's vectors on this host
    (`Vectorized<T>::size()`: 64 bytes where ATen dispatches to AVX-512, else 32)."""
    width = 64 if torch.backends.cpu.get_cpu_capability().startswith("AVX512") else 32
    return width // dtype.itemsize


def _tail(keys: int, dtype: torch.dtype) -> torch.Tensor:
    """Which of a row's `keys` scores the kernel's scalar tail reads (the rest, its vector
    loop)."""
    return torch.arange(keys) >= keys // _lanes(dtype) * _lanes(dtype)


def _row_maximum(scores: torch.Tensor, tail: torch.Tensor, masked: bool) -> torch.Tensor:
    """Each row's maximum as the kernel takes it, [..., rows, 1]."""
    if masked:  # at::vec::reduce_all with vec::maximum: NaN propagates
        return torch.amax(scores, -1, keepdim=True)
    vector = torch.amax(torch.where(tail, -math.inf, scores), -1, keepdim=True)
    scalar = torch.amax(torch.where(tail & ~scores.isnan(), scores, -math.inf), -1, keepdim=True)
    return torch.maximum(vector, scalar)


def flash_attention_for_cpu(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    attn_mask: torch.Tensor | None = None,
    scale: float | None = None,
) -> Any:
    """aten._scaled_dot_product_flash_attention_for_cpu: (output, logsumexp), for up to one
    block of keys."""
    keys = key.shape[-2]
    if dropout_p or query.dim() != 4 or key.shape[1] != query.shape[1] or keys > _KEYS_PER_BLOCK:
        return NotImplemented
    dtype = query.dtype
    wide = torch.float32 if dtype in _SIXTEEN_BIT else dtype
    q, k, v = (t.to(wide) for t in (query, key, value))
    factor = scale if scale is not None else 1 / math.sqrt(query.shape[-1])
    scores = torch.matmul(q, k.transpose(-2, -1)) * factor
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_mask = torch.where(attn_mask, 0.0, -math.inf)
        scores = scores + attn_mask.to(wide)
    if is_causal:  # overwritten, as the kernel fills them: a NaN there does not reach the row
        rows = query.shape[-2]
        past = torch.where(torch.arange(keys) > torch.arange(rows).unsqueeze(-1), -math.inf, 0.0)
        scores = torch.where(past < 0, past, scores)
    tail = _tail(keys, wide)
    # a row whose maximum is -inf (its scores -inf, or NaN in the scalar tail) is skipped
    skipped = _row_maximum(scores, tail, attn_mask is not None) == -math.inf
    scores = torch.where(skipped, -math.inf, scores)
    top = torch.amax(scores, -1, keepdim=True)
    weights = torch.exp(scores - torch.where(skipped, 0.0, top))
    if dtype in _SIXTEEN_BIT:  # the vector loop's fast exp gives 0 for inf - inf
        weights = torch.where(~tail & (scores == math.inf) & (top == math.inf), 0.0, weights)
    total = weights.sum(-1, keepdim=True)
    if dtype in _SIXTEEN_BIT:  # the kernel multiplies 16-bit weights by 16-bit values
        weights = weights.to(dtype).to(wide)
    total = torch.where(total == 0, 1.0, total)
    output = torch.matmul(weights, v) * (1 / total)
    logsumexp = torch.where(skipped, 0.0, top) + torch.log(total)
    return output.to(dtype), logsumexp.squeeze(-1)


ATTENTION: dict[Any, Callable[..., Any]] = {
    aten._scaled_dot_product_flash_attention_for_cpu.default: flash_attention_for_cpu,
}
