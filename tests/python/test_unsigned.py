"""Unsigned integer tensors in and out: IREE's calling convention is signless, so their bits
travel as signed arrays of the same width and come back unsigned; reductions torch-mlir
lowers with signed semantics are computed through a wider signed type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from shlo.api import compile_torch

# Values on both sides of 127, rows entirely above and entirely below 128.
X = torch.tensor([[1, 200, 255, 100], [130, 7, 128, 127], [200, 201, 250, 129]], dtype=torch.uint8)
Y = torch.tensor([[3, 100, 250, 200], [5, 9, 200, 1], [1, 2, 3, 4]], dtype=torch.uint8)


class Apply(torch.nn.Module):
    def __init__(self, function: Callable[..., Any]) -> None:
        super().__init__()
        self.function = function

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> Any:
        return self.function(a, b)


@pytest.mark.parametrize(
    "function",
    [
        lambda a, b: (a, a.float()),
        lambda a, b: (torch.maximum(a, b), torch.minimum(a, b), a > b, a // b, a + b),
        lambda a, b: torch.ops.aten.max(a, 1),
        lambda a, b: torch.ops.aten.min(a, 1),
        lambda a, b: (a.amax(1), a.argmax(1), a.sort(1)[0]),
    ],
    ids=["identity", "elementwise", "max_dim", "min_dim", "amax_argmax_sort"],
)
def test_uint8_matches_eager(function: Callable[..., Any]) -> None:
    compiled = compile_torch(Apply(function), (X, Y))
    got, want = compiled(X, Y), function(X, Y)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and torch.equal(g, w), (g, w)
