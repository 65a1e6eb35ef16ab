"""Ops whose result depends on the dtype eager computes in or on its algorithm at special
values, compiled for llvm-cpu and compared with eager bit for bit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

from shlo.api import compile_torch

NAN, INF = float("nan"), float("inf")


class _Model(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:
        return self.fn(*args)


def _assert_as_eager(fn: Callable[..., Any], *inputs: torch.Tensor) -> None:
    expected = fn(*inputs)
    actual = compile_torch(_Model(fn), inputs, target="llvm-cpu", device="local-sync")(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = tuple(actual) if isinstance(actual, (list, tuple)) else (actual,)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        torch.testing.assert_close(a, e, rtol=0, atol=0, equal_nan=True)


def test_copysign_converts_integers_to_float_before_taking_the_magnitude() -> None:
    """|int32 minimum| is 2**31 in float, not the int32 minimum again."""
    x = torch.tensor([-(2**31), 2**31 - 1, 0, -7], dtype=torch.int32)
    sign = torch.tensor([1.0, -1.0, -0.0, 2.0])
    _assert_as_eager(
        lambda a, b: (torch.copysign(a, b), torch.copysign(a, -1.0), torch.copysign(a, a)),
        x,
        sign,
    )


def test_all_and_any_of_integers_reduce_truth_values_in_eagers_dtype() -> None:
    """Nonzero values whose bits share nothing (1 and 2) are all true, and `any` is 1."""
    x = torch.tensor([[1, 2, 0], [2, 1, 255]], dtype=torch.uint8)
    _assert_as_eager(
        lambda a, b: (
            torch.all(a, 0), torch.any(a, 1), torch.all(a), torch.all(a, (0, 1)),
            torch.all(b, 0), torch.any(b, 1),
        ),
        x,
        x.to(torch.int32) * -3,
    )  # fmt: skip


def test_16_bit_averages_are_computed_in_f32_as_aten_does() -> None:
    """A window's or a row's sum past the f16 maximum, its average not."""
    x = torch.full((1, 2, 4, 4), 60000.0, dtype=torch.float16)
    x[0, 0, 0, 1] = 0.3
    _assert_as_eager(lambda a: (F.avg_pool2d(a, 2), F.avg_pool2d(a, 3, 1, 1), a.mean((2, 3))), x)


def test_bucketize_searches_as_aten_does_through_nan() -> None:
    """ATen's binary search puts NaN past every boundary, and a value past a NaN boundary."""
    values = torch.tensor([-3.0, 0.5, 1.0, 2.5, 7.0, NAN, INF, -0.0], dtype=torch.bfloat16)
    boundaries = torch.tensor([0.0, 1.0, 2.0, 3.0, NAN], dtype=torch.bfloat16)
    _assert_as_eager(
        lambda a, b: (torch.bucketize(a, b), torch.bucketize(a, b, right=True, out_int32=True)),
        values,
        boundaries,
    )


def test_searchsorted_searches_rows_as_aten_does() -> None:
    """Each row of a 2-d sequence (unsorted and NaN rows too) searched for its own values, from
    either side, through a sorter, and for a number."""
    sequence = torch.tensor([[0.0, 1.0, 2.0, 3.0], [3.0, 1.0, NAN, 0.5], [-INF, 0.0, 0.0, INF]])
    values = torch.tensor([[1.0, 2.5, NAN], [0.5, 3.0, -1.0], [0.0, INF, -INF]])
    sorter = sequence.argsort(-1)

    def fn(s: torch.Tensor, v: torch.Tensor, order: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.searchsorted(s, v),
            torch.searchsorted(s, v, side="right", out_int32=True),
            torch.searchsorted(s, v, sorter=order),
            torch.searchsorted(s[0], 1.5, right=True),
            torch.searchsorted(s[0], v),
        )

    _assert_as_eager(fn, sequence, values, sorter)


def test_fmod_and_remainder_are_exact_past_the_significand_and_by_infinity() -> None:
    """C's fmod: exact for any quotient, the dividend itself for an infinite divisor."""
    dividend = torch.tensor([3.0e38, -0.0, 5.0, -(2.0**31), 1e10, 7.5, NAN, INF])
    divisor = torch.tensor([-INF, -INF, INF, 2.5, 3.0, -2.0, 1.0, 2.0])

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.fmod(a, b), torch.remainder(a, b), torch.fmod(a, 2.5)

    for dtype in (torch.float32, torch.bfloat16):
        _assert_as_eager(fn, dividend.to(dtype), divisor.to(dtype))
    # f64 only by infinity: its quotients past 2**53 stay torch-mlir's
    infinite = torch.where(divisor.isinf(), divisor, INF).double()
    _assert_as_eager(
        lambda a, b: (torch.fmod(a, b), torch.remainder(a, b)), dividend.double(), infinite
    )


def test_transposed_convolution_multiplies_weights_by_the_inputs_own_elements_only() -> None:
    """An infinite weight gives infinite outputs, not NaN from the zeros a stride spreads the
    input with; grouped, dilated, with output padding, in 1-d and 2-d."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randint(-4, 5, (2, 4, 3, 3), generator=generator).double()
    weight = torch.randint(-4, 5, (4, 3, 3, 2), generator=generator).double()
    weight[0, 1, 2, 0] = INF
    weight[3, 0, 0, 1] = -INF
    bias = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0, 2.0], dtype=torch.float64)
    _assert_as_eager(
        lambda a, w, b: (
            F.conv_transpose2d(a, w, b, stride=2, padding=1, output_padding=1, groups=2),
            F.conv_transpose2d(a, w, None, stride=(1, 3), dilation=(2, 1)),
            F.conv_transpose1d(a[:, :, 0], w[..., 0], b[:3], stride=3),
        ),
        x,
        weight,
        bias,
    )
