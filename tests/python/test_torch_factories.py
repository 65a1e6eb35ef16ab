"""Tensor factories torch-mlir lowers wrong or not at all: random integers are integer values in
[low, high) in every dtype, the `_like` forms included (torch-mlir lowered `randint` of a float
dtype to the uniform draw, unrounded, and had no lowering for `randint_like`), and
`empty_strided` (what `new_ones` of some layouts becomes) is an empty tensor of its size."""

from __future__ import annotations

import torch

from shlo.api import compile_torch


class Factories(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        empty = torch.empty_strided((2, 3), (1, 2), dtype=x.dtype)
        return (
            torch.randint(-5, 5, (4000,)),
            torch.randint(7, (4000,), dtype=torch.float32),
            torch.randint(3, 10, (4000,), dtype=torch.float64),
            torch.randint_like(x, 4),
            torch.randint_like(x, -2, 3, dtype=torch.int32),
            empty.fill_(1.0) + x[:2, :3],
            x.new_ones((3, 2), dtype=torch.int64),
        )


def test_factories_match_eager() -> None:
    x = torch.rand(40, 100)
    got, want = compile_torch(Factories(), (x,))(x), Factories()(x)
    for have, expected in zip(got[5:], want[5:], strict=True):
        torch.testing.assert_close(have, expected)
    ranges = [(-5, 5), (0, 7), (3, 10), (0, 4), (-2, 3)]
    for have, expected, (low, high) in zip(got[:5], want[:5], ranges, strict=True):
        assert have.dtype == expected.dtype and have.shape == expected.shape
        assert bool((have == torch.floor(have.double())).all())
        assert have.min() == low and have.max() == high - 1
        counts = torch.bincount((have.long() - low).flatten(), minlength=high - low)
        # each value about equally often (4000 draws: a count off by 6 sigma is a bug)
        expected_count = have.numel() / (high - low)
        assert (counts - expected_count).abs().max() < 6 * expected_count**0.5, counts
