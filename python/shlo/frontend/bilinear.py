"""`nn.Bilinear` in the order ATen's `_trilinear` computes it.

For each output feature, ATen first contracts the first input with the weight
(`sum_i x1[i] * w[k, i, j]`), then that with the second input (`sum_j ... * x2[j]`).
torch-mlir lowers `_trilinear` as the product of all three, summed once, so an extreme or
infinite input overflowed in other places: NaN where eager's sums gave an infinity, or the
reverse.  The two contractions are written out here as a matrix product and a sum.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten


def bilinear(
    x1: torch.Tensor, x2: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None
) -> torch.Tensor:
    features, left, right = weight.shape
    rows1, rows2 = x1.reshape(-1, left), x2.reshape(-1, right)
    # first contraction: [row, feature, j]
    partial = torch.matmul(rows1, weight.permute(1, 0, 2).reshape(left, features * right))
    out = (partial.reshape(-1, features, right) * rows2.unsqueeze(1)).sum(-1)
    out = out.reshape(*x1.shape[:-1], features)
    return out if bias is None else out + bias


BILINEAR: dict[Any, Callable[..., Any]] = {aten.bilinear.default: bilinear}
