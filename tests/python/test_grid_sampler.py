"""`grid_sample` matches eager for every mode, padding mode and `align_corners`, with NaN,
infinities, the largest floats, -0.0 and subnormals in the input and in the grid: an infinity
at (0, 0) is where an out-of-bounds neighbour used to be read and multiplied by 0 (NaN where
eager gives a number), and NaN or infinite grid positions are out of bounds, clipped to 0 or
reflected as ATen's kernel does."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

from shlo.api import compile_torch

PADDINGS = ("zeros", "border", "reflection")


class Sample(torch.nn.Module):
    """One mode under every padding mode and both `align_corners`."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def forward(self, x: torch.Tensor, grid: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return tuple(
            F.grid_sample(x, grid, mode=self.mode, padding_mode=padding, align_corners=corners)
            for padding in PADDINGS
            for corners in (False, True)
        )


def _inputs(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    big = torch.finfo(dtype).max
    tiny = torch.finfo(dtype).smallest_normal / 4
    x = torch.randn(2, 3, 4, 5, dtype=dtype)
    x[0, 0, 0, 0] = float("inf")  # where a masked neighbour used to be read
    x[0, 1, 0, 0] = -float("inf")
    x[0, 2, 1, 2] = float("nan")
    x[1, 0, 3, 4] = float("inf")
    x[1, 1, 2, 1] = -0.0
    x[1, 2, 0, 3] = tiny
    x[1, 0, 1, 1] = big
    x[1, 2, 2, 2] = -big
    positions = [
        float("nan"),
        float("inf"),
        -float("inf"),
        big,
        -big,
        -0.0,
        tiny,
        1.0,
        -1.0,
        1.7,
        -2.5,
        3.25,
        0.25,
        -0.75,
        0.5,
    ]
    grid = torch.rand(2, 6, 7, 2, dtype=dtype) * 2.4 - 1.2
    special = torch.tensor(positions, dtype=dtype)
    grid[0, 0, : len(positions) // 2, 0] = special[: len(positions) // 2]
    grid[0, 1, :, 1] = special[-7:]
    grid[1, 2, :, 0] = special[:7]
    grid[1, 3, :, :] = special[3:10].unsqueeze(1)
    # bicubic with align_corners: the weight of the row holding the infinity at (0, 0) rounds
    # to exactly 0 in the kernel (0 * inf = NaN); an FMA would make it -2.4e-7 (an infinity)
    grid[0, 2, 0] = torch.tensor([-0.4655, 0.332954078912735], dtype=dtype)
    return x, grid


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_matches_eager_with_special_values(mode: str, dtype: torch.dtype) -> None:
    x, grid = _inputs(dtype)
    expected = Sample(mode)(x, grid)
    actual = compile_torch(Sample(mode), (x, grid))(x, grid)
    for got, want, (padding, corners) in zip(
        actual, expected, [(p, c) for p in PADDINGS for c in (False, True)], strict=True
    ):
        try:
            torch.testing.assert_close(got, want, equal_nan=True)
        except AssertionError as error:
            raise AssertionError(f"padding {padding}, align_corners {corners}: {error}") from None
