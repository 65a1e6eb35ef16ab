"""`grid_sample` (`aten.grid_sampler_2d`) of f32 and f64 tensors as ATen's vectorized CPU kernel
computes it.

PyTorch's decomposition multiplies every neighbour by its weight after moving an out-of-bounds
neighbour to (0, 0): an infinity at (0, 0) times the zero weight gave NaN where eager, which
never reads a masked neighbour (it stands in 0), gives a number.  Its coordinates differ too:
`coord * mul + ofs` and an fmod reflection round otherwise than ATen's `(coord + 1) * scale`
and truncated division, and a NaN coordinate was clamped to NaN where ATen's clip makes it 0.
Here each step follows `GridSamplerKernel.cpp`: the source position, the border clip (NaN to
0), the reflection, the within-bounds test of each neighbour (a non-finite position is out of
bounds, its weight still multiplies the 0 stood in, so a NaN weight gives NaN as in eager), and
the products summed in the kernel's order.  Other dtypes keep PyTorch's decomposition.
The outer cubic weights are rounded step by step as the kernel rounds them, not fused into
FMAs: near t = 1 the kernel's weight is exactly 0, and 0 times an infinity is NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2
CUBIC = -0.75  # ATen's cubic convolution constant (as in upsample_bicubic2d)


def _unnormalize(coord: torch.Tensor, size: int, align_corners: bool) -> torch.Tensor:
    """From [-1, 1] to pixel positions, as the kernel scales them."""
    if align_corners:
        return (coord + 1) * ((size - 1) / 2)
    return (coord + 1) * (size / 2) - 0.5


def _clip(coord: torch.Tensor, size: int) -> torch.Tensor:
    """Clamped to [0, size - 1]; ATen's operand order makes NaN 0."""
    return torch.where(torch.isnan(coord), 0.0, coord.clamp(0, size - 1))


def _reflect(coord: torch.Tensor, size: int, align_corners: bool) -> torch.Tensor:
    """Reflected at the borders by whole double flips (truncated division), then once more
    where past the far border; an infinity becomes NaN, which the clip after makes 0."""
    if align_corners:
        if size <= 1:
            return torch.zeros_like(coord)
        low, twice_span = 0.0, (size - 1) * 2.0
    else:
        low, twice_span = -0.5, size * 2.0
    distance = (coord - low).abs()
    flips = torch.floor(distance / twice_span)
    extra = distance - flips * twice_span
    return torch.minimum(extra, twice_span - extra) + low


def _padded(coord: torch.Tensor, size: int, padding: int, align_corners: bool) -> torch.Tensor:
    if padding == BORDER:
        return _clip(coord, size)
    if padding == REFLECTION:
        return _clip(_reflect(coord, size, align_corners), size)
    return coord


class _Source:
    """Reads the input at float positions; a position outside it (or not finite) reads 0,
    as the kernel's masked gather does."""

    def __init__(self, x: torch.Tensor) -> None:
        self.x = x
        batch, channels, self.height, self.width = x.shape
        self.batch = torch.arange(batch).view(batch, 1, 1, 1)
        self.channel = torch.arange(channels).view(1, channels, 1, 1)

    def read(self, column: torch.Tensor, row: torch.Tensor) -> torch.Tensor:
        inside = (column > -1) & (column < self.width) & (row > -1) & (row < self.height)
        columns = torch.where(inside, column, 0.0).to(torch.int64).unsqueeze(1)
        rows = torch.where(inside, row, 0.0).to(torch.int64).unsqueeze(1)
        values = self.x[self.batch, self.channel, rows, columns]
        return torch.where(inside.unsqueeze(1), values, 0.0)


def _cubic_weights(t: torch.Tensor) -> list[torch.Tensor]:
    """The four cubic convolution weights at distance `t` past the second neighbour."""

    def apart(product: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
        """`product` rounded on its own, as the kernel rounds it: IREE fuses a product and the
        addition after it into an FMA, and near t = 1 the kernel's rounding cancels the weight
        to 0 exactly (so that 0 * inf = NaN).  `d` is at most 2 or NaN, so the select keeps
        `product` (NaN stays NaN); its other operand is not a constant the addition could be
        folded into."""
        return torch.where(d <= 2, product, d)

    def far(d: torch.Tensor) -> torch.Tensor:  # 1 <= d <= 2
        first = apart(CUBIC * d, d) - 5 * CUBIC
        second = apart(first * d, d) + 8 * CUBIC
        return apart(second * d, d) - 4 * CUBIC

    def near(d: torch.Tensor) -> torch.Tensor:  # d <= 1
        return ((CUBIC + 2) * d - (CUBIC + 3)) * d * d + 1

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _sum(terms: list[torch.Tensor]) -> torch.Tensor:
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def grid_sampler_2d(
    x: torch.Tensor, grid: torch.Tensor, mode: int, padding: int, align_corners: bool
) -> Any:
    """ATen's vectorized kernel, step by step; f16 and other dtypes are left as they are."""
    if x.dtype not in (torch.float32, torch.float64) or grid.dtype != x.dtype:
        return NotImplemented
    source = _Source(x)
    gx, gy = grid[..., 0], grid[..., 1]
    if mode == BICUBIC:
        cx = _unnormalize(gx, source.width, align_corners)
        cy = _unnormalize(gy, source.height, align_corners)
        left, top = torch.floor(cx), torch.floor(cy)
        across, down = _cubic_weights(cx - left), _cubic_weights(cy - top)
        rows = []
        for i in range(4):
            row = _padded(top + (i - 1), source.height, padding, align_corners)
            columns = [
                _padded(left + (k - 1), source.width, padding, align_corners) for k in range(4)
            ]
            rows.append(
                _sum([across[k].unsqueeze(1) * source.read(columns[k], row) for k in range(4)])
            )
        return _sum([down[i].unsqueeze(1) * rows[i] for i in range(4)])
    cx = _padded(
        _unnormalize(gx, source.width, align_corners), source.width, padding, align_corners
    )
    cy = _padded(
        _unnormalize(gy, source.height, align_corners), source.height, padding, align_corners
    )
    if mode == NEAREST:
        return source.read(torch.round(cx), torch.round(cy))
    west, north = torch.floor(cx), torch.floor(cy)
    w = cx - west
    e = 1 - w
    n = cy - north
    s = 1 - n
    east, south = west + 1, north + 1
    corners = [
        (west, north, s * e),
        (east, north, s * w),
        (west, south, n * e),
        (east, south, n * w),
    ]
    return _sum([source.read(c, r) * weight.unsqueeze(1) for c, r, weight in corners])


GRID_SAMPLER: dict[Any, Callable[..., Any]] = {
    aten.grid_sampler_2d.default: grid_sampler_2d,
}
