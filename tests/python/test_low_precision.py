"""bf16 and f16 sums on llvm-cpu give eager's bits: eager adds them in f32 and rounds once,
while IREE added f16 in f16 and rounded a bf16 sum to bf16 after every vector of elements, until
`shlo-accumulate-in-f32` made each such sum an f32 one."""

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
