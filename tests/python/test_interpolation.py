"""Linear, bilinear, bicubic and trilinear interpolation match eager over the grid of their
options (sizes up and down, the same size, scale factors kept or recomputed, `align_corners`),
on inputs holding NaN and infinities, whose neighbours and zero weights decide where eager
gives an infinity or NaN; and Python float scalars round to f32 as eager rounds them."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

from shlo.api import compile_torch

MODES = [(1, "linear"), (2, "bilinear"), (2, "bicubic"), (3, "trilinear")]
SHAPES = {1: (2, 3, 7), 2: (2, 3, 5, 6), 3: (1, 2, 3, 4, 5)}
RESIZES: list[dict] = [
    {"scale_factor": 2.0},
    {"scale_factor": 0.6},
    {"scale_factor": 1.7, "recompute_scale_factor": False},
    {"grow": 3},
    {"grow": 0},
]


class Grid(torch.nn.Module):
    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def forward(self, x: torch.Tensor) -> tuple:
        outputs = []
        for corners in (False, True):
            for resize in RESIZES:
                options = dict(resize)
                if "grow" in options:
                    grow = options.pop("grow")
                    options["size"] = tuple(s + grow for s in x.shape[2:])
                outputs.append(F.interpolate(x, mode=self.mode, align_corners=corners, **options))
        return tuple(outputs)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize(("rank", "mode"), MODES)
def test_interpolation_matches_eager_with_nan_and_infinities(
    rank: int, mode: str, dtype: torch.dtype
) -> None:
    torch.manual_seed(rank)
    x = torch.randn(SHAPES[rank], dtype=dtype)
    # a large finite neighbour beside the infinities; bicubic's 16 products (weights below
    # 0 among them) would round its 1e4 beyond the tolerance here
    large = 1e4 if mode != "bicubic" else 10.0
    x.view(-1)[[1, 5, 9, 13]] = torch.tensor(
        [float("inf"), -float("inf"), float("nan"), large], dtype=dtype
    )
    expected = Grid(mode)(x)
    actual = compile_torch(Grid(mode), (x,))(x)
    close = {torch.float16: 1e-3, torch.bfloat16: 1e-2}.get(dtype, 1e-5)
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(got, want, equal_nan=True, atol=close, rtol=close)


class Scaled(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return x * (2 / 3), x * 0.1, (torch.arange(10, dtype=torch.float32) * (6 / 9) + x).long()


def test_float_scalars_round_as_eager_rounds_them() -> None:
    """Eager rounds a Python float to the nearest f32; IREE's demotion of f64 truncated it."""
    x = torch.ones(10)
    expected = Scaled()(x)
    actual = compile_torch(Scaled(), (x,))(x)
    for got, want in zip(actual, expected, strict=True):
        assert torch.equal(got, want)


class Bicubic(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=(6, 6), mode="bicubic", align_corners=True)


def test_a_neighbour_that_eager_weighs_exactly_zero_is_weighed_zero() -> None:
    """The last output row sits on input row 3 (0.6 * 5 rounds to 3.0 in f32), so eager weighs
    row 2 by exactly 0 and its infinity gives NaN; the position's fraction, computed in the
    compiled module, came out 1e-7 (a fused multiply-subtract) and gave inf instead."""
    x = torch.randn(1, 1, 4, 4, generator=torch.Generator().manual_seed(0))
    x[0, 0, 2, 2] = float("inf")
    expected = Bicubic()(x)
    assert expected[0, 0, 5].isnan().any()
    torch.testing.assert_close(compile_torch(Bicubic(), (x,))(x), expected, equal_nan=True)
