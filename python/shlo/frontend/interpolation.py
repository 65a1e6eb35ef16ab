"""Linear, bilinear and trilinear upsampling of float tensors as ATen's CPU kernels compute them.

PyTorch's decomposition blends two neighbours as `x0 + (x1 - x0) * t`; ATen's kernel sums the
weighted neighbours, `x0 * (1 - t) + x1 * t`.  The two differ where a neighbour is infinite:
between `inf` and 2, eager gives `inf` and the decomposition `inf - inf = NaN`, and next to an
infinity whose weight is 0 eager gives NaN (`inf * 0`) where the decomposition gives the other
neighbour.  The weighted sum is written here, one spatial dimension at a time from the last (the
nesting of ATen's kernel, so the same products are added in the same order), in f32 for f16
and bf16 inputs and rounded once, as the kernel's `opmath_t` does; the weights themselves are
held as ATen's kernels hold them: in f32 for bilinear, in the input's dtype for linear and
trilinear.  The source positions and weights follow ATen's
`compute_source_index_and_lambda`: an output as large as its input copies it (weight 0 on the
same neighbour), and positions are clamped at the start and at the last element.  Integer
inputs keep PyTorch's decomposition.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch._decomp.decompositions import upsample_compute_output_size

aten = torch.ops.aten


def _blend(
    x: torch.Tensor,
    dim: int,
    size: int,
    align_corners: bool,
    scale: float | None,
    weights: torch.dtype,
) -> torch.Tensor:
    """`x` resized to `size` along `dim`, each output the weighted sum of its two neighbours,
    whose weights are held in `weights` (the input's dtype, as ATen holds them)."""
    given = x.shape[dim]
    if size == given:
        lower = upper = torch.arange(size)
        weight = torch.zeros(size, dtype=x.dtype)
    else:
        if align_corners:
            ratio = (given - 1) / (size - 1) if size > 1 else 0.0
        else:
            ratio = 1.0 / scale if scale is not None and scale > 0 else given / size
        positions = torch.arange(size, dtype=x.dtype)
        if align_corners:
            source = positions * ratio
        else:
            source = ((positions + 0.5) * ratio - 0.5).clamp(min=0)
        lower = source.to(torch.int64).clamp(max=given - 1)
        weight = (source - lower.to(x.dtype)).clamp(0, 1)
        upper = torch.where(lower < given - 1, lower + 1, lower)
    shape = [1] * x.dim()
    shape[dim] = size
    weight = weight.to(weights).reshape(shape)
    near = torch.index_select(x, dim, lower) * (1 - weight).to(x.dtype)
    return near + torch.index_select(x, dim, upper) * weight.to(x.dtype)


def _linear(
    x: torch.Tensor, sizes: Sequence[int], align_corners: bool, scales: Sequence[float | None]
) -> Any:
    if not x.is_floating_point():
        return NotImplemented
    wide = x.to(torch.float32) if x.dtype in (torch.float16, torch.bfloat16) else x
    weights = wide.dtype if len(sizes) == 2 else x.dtype
    first = x.dim() - len(sizes)
    for offset in reversed(range(len(sizes))):
        scale = scales[offset]
        wide = _blend(wide, first + offset, sizes[offset], align_corners, scale, weights)
    return wide.to(x.dtype)


def _with_sizes(rank: int) -> Callable[..., Any]:
    """The `.default` overload: output sizes given, then one optional scale per dimension."""

    def run(
        x: torch.Tensor, output_size: Sequence[int], align_corners: bool, *scales: float | None
    ) -> Any:
        return _linear(x, output_size, align_corners, [*scales, *[None] * rank][:rank])

    return run


def _with_factors(
    x: torch.Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Any:
    """The `.vec` overload: output sizes or scale factors."""
    sizes = upsample_compute_output_size(x.size(), output_size, scale_factors)  # type: ignore[no-untyped-call]
    scales = list(scale_factors) if scale_factors else [None] * len(sizes)
    return _linear(x, sizes, align_corners, scales)


INTERPOLATION: dict[Any, Callable[..., Any]] = {
    aten.upsample_linear1d.default: _with_sizes(1),
    aten.upsample_bilinear2d.default: _with_sizes(2),
    aten.upsample_trilinear3d.default: _with_sizes(3),
    aten.upsample_linear1d.vec: _with_factors,
    aten.upsample_bilinear2d.vec: _with_factors,
    aten.upsample_trilinear3d.vec: _with_factors,
}
