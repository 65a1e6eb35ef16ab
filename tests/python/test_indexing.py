"""Indexing with indices computed at run time counts negative ones from the end, as eager does
(torch-mlir's gather alone clamps them to 0: a wrong answer, not an error)."""

from __future__ import annotations

import pytest
import torch

from shlo.api import compile_torch


class TakeAlongLast(torch.nn.Module):
    def forward(self, x: torch.Tensor, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.ops.aten.index(x, (None, None, index)), x[0, index]


@pytest.mark.parametrize("value", [-3, -1, 0, 2])
def test_runtime_negative_indices_count_from_the_end(value: int) -> None:
    x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    compiled = compile_torch(TakeAlongLast(), (x, torch.tensor([1, -2])))
    index = torch.tensor([value, -2])
    for got, want in zip(compiled(x, index), TakeAlongLast()(x, index), strict=True):
        assert torch.equal(got, want)
