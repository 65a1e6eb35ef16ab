"""bf16 and f16 sums on llvm-cpu give eager's bits: eager adds them in f32 and rounds once,
while IREE added f16 in f16 and rounded a bf16 sum to bf16 after every vector of elements, until
`shlo-accumulate-in-f32` made each such sum an f32 one.  So do pointwise ops, a number they
are given, and scans: eager computes them in f32 and rounds once (`shlo.frontend.opmath`)."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from shlo.api import compile_torch

WIDTH = 32


class Pooled(nn.Module):
    """Rows summed and columns averaged: torch-mlir writes each as a `reduce` in the tensor's
    own type."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.cat([x, -x.flip(1), x * 0.5], 1).sum(-1), x.mean(0)


def _different_bits(got: torch.Tensor, expected: torch.Tensor) -> int:
    """How many elements differ from `expected` in their bits (any NaN matches any NaN)."""
    nan = expected.isnan()
    assert torch.equal(got.isnan(), nan)
    return int((got.view(torch.int16) != expected.view(torch.int16))[~nan].sum())


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_sums_round_once_as_eager(dtype: torch.dtype) -> None:
    """Before, a quarter of the bf16 sums and most f16 ones came out one or more ulps off."""
    torch.manual_seed(0)
    x = torch.randn(64, WIDTH).to(dtype)
    x[0, 0] = float("nan")
    model = Pooled()
    with torch.no_grad():
        expected = model(x)
        got = compile_torch(model, (x,), target="llvm-cpu")(x)
    assert [_different_bits(g, e) for g, e in zip(got, expected, strict=True)] == [0, 0]


def _opmath(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return (
        torch.sigmoid(x),
        x * 0.1,
        torch.cumsum(x, 0),
        torch.sqrt(x.abs()),
        torch.nn.functional.silu(x),
        x + 1e-3,
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_pointwise_ops_and_scans_round_once_as_eager(dtype: torch.dtype) -> None:
    """torch-mlir wrote each op as ops in the 16-bit type, each rounded (and 0.1 rounded to it
    first): sigmoid and `x * 0.1` were an ulp off in a third of the elements, a float16 cumsum
    of 64 values lost its low bits."""
    x = (torch.randn(64, WIDTH, generator=torch.Generator().manual_seed(0)) * 3).to(dtype)
    for got, want in zip(compile_torch(_opmath, (x,))(x), _opmath(x), strict=True):
        assert torch.equal(got, want)


def test_float16_gelu_does_not_cancel_to_zero() -> None:
    """gelu(-3.8) is x/2 (1 + erf(x/sqrt 2)): in float16, 1 + erf cancelled to 0."""
    x = torch.tensor([-3.8, -3.0, -1.0, 0.5], dtype=torch.float16)
    got = compile_torch(torch.nn.functional.gelu, (x,))(x)
    torch.testing.assert_close(got, torch.nn.functional.gelu(x), rtol=2e-3, atol=0)


def _with_numbers(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    number = 0.1234567  # rounds to another value in float16 and in bfloat16
    return (
        x + number,
        x - number,
        x.abs() ** number,
        torch.fmod(x, number),
        x * number,
        x / number,
        torch.nn.functional.leaky_relu(x, number),
        torch.lerp(x, 2 * x, number),
    )


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_numbers_are_read_at_the_precision_eager_reads_them(dtype: torch.dtype) -> None:
    """ATen rounds the number a binary op adds, subtracts, raises or divides by to the tensor's
    type, but reads the one it multiplies or divides by, and an activation's parameter, at
    float32's precision."""
    x = (torch.randn(4096, generator=torch.Generator().manual_seed(1)) * 3).to(dtype)
    for got, want in zip(compile_torch(_with_numbers, (x,))(x), _with_numbers(x), strict=True):
        assert torch.equal(got, want)


def _asked_for_float32(x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    return (
        torch.sum(x, 1, dtype=torch.float32),
        torch.cumsum(x, 0, dtype=torch.float32),
        torch.mean(x, 0, dtype=torch.float32),
        torch.softmax(x, 1, dtype=torch.float32),
    )


def test_a_result_asked_for_in_float32_stays_float32() -> None:
    x = torch.randn(4, WIDTH).to(torch.float16)
    got, want = compile_torch(_asked_for_float32, (x,))(x), _asked_for_float32(x)
    assert [g.dtype for g in got] == [w.dtype for w in want] == [torch.float32] * 4
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)
