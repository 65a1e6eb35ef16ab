"""An f64 transposed convolution as ATen's CPU kernel computes it: products, then placed and
added.

torch-mlir lowers a transposed convolution to a convolution of the input spread out with zeros
(StableHLO's `lhs_dilation`) and padded with zeros, so every weight is multiplied by those
zeros too: an infinite weight made NaN of outputs that eager gives as infinite.  ATen
(`slow_conv_transpose*d`, col2im) multiplies the weights by the input's own elements only
(one matrix product per group) and adds each kernel position's products into the output at
its strided place; so does this, the places filled by zero padding that is added, never
multiplied.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)


def _spread(x: torch.Tensor, dim: int, stride: int) -> torch.Tensor:
    """`x` with `stride - 1` zeros after each element along `dim` but the last."""
    if stride == 1:
        return x
    zeros = x.new_zeros([*x.shape[: dim + 1], stride - 1, *x.shape[dim + 1 :]])
    spread = torch.cat([x.unsqueeze(dim + 1), zeros], dim + 1).flatten(dim, dim + 1)
    return spread.narrow(dim, 0, (x.shape[dim] - 1) * stride + 1)


def scattered_products(
    x: torch.Tensor,
    weight: torch.Tensor,
    stride: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> torch.Tensor:
    """The whole (unpadded) transposed convolution of `x` (batch, channels, spatial...) by
    `weight` (in channels, out channels per group, kernel...)."""
    batch, channels, *extents = x.shape
    kernel = list(weight.shape[2:])
    per_group = channels // groups
    outputs = weight.shape[1] * groups
    # (group, out channels x kernel positions, in channels) @ (batch, group, in channels, P)
    w = weight.reshape(groups, per_group, -1).transpose(1, 2)
    columns = torch.matmul(w, x.reshape(batch, groups, per_group, math.prod(extents)))
    columns = columns.reshape(batch, outputs, math.prod(kernel), *extents)
    sizes = [(n - 1) * s + d * (k - 1) + 1 for n, s, d, k in zip(
        extents, stride, dilation, kernel, strict=True
    )]  # fmt: skip
    total = x.new_zeros([batch, outputs, *sizes])
    for position, offsets in enumerate(itertools.product(*(range(k) for k in kernel))):
        piece = columns[:, :, position]
        widths: list[int] = []  # F.pad takes the last dimension first
        for dim, (o, s, d, size) in enumerate(zip(offsets, stride, dilation, sizes, strict=True)):
            piece = _spread(piece, 2 + dim, s)
            widths = [o * d, size - o * d - piece.shape[2 + dim], *widths]
        total = total + F.pad(piece, widths)
    return total
