"""Scatters that reduce and `x[mask] = v` match eager (torch-mlir alone refused both)."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from shlo.api import compile_torch, import_model
from shlo.errors import AssertionFailed

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


class EveryReduction(torch.nn.Module):
    """scatter_reduce with each reduction, with and without the positions' own values."""

    def forward(self, x: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> Any:
        return tuple(
            x.scatter_reduce(1, index, src, reduce, include_self=include_self)
            for reduce in REDUCTIONS
            for include_self in (True, False)
        )


def _assert_matches(got: Any, want: Any, **tolerance: Any) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        torch.testing.assert_close(g, w, equal_nan=True, **tolerance)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16])
def test_scatter_reduce_matches_eager(dtype: torch.dtype) -> None:
    generator = torch.Generator().manual_seed(0)
    x = (torch.randn(3, 5, generator=generator) * 7).to(dtype)
    src = (torch.randn(2, 4, generator=generator) * 7).to(dtype)
    index = torch.tensor([[0, 4, 4, 0], [2, 2, 0, 2]])  # repeated, one position untouched
    if dtype.is_floating_point:
        x[0, 0] = src[1, 1] = float("nan")
    else:  # negative sums whose mean rounds down
        x[1], src[1] = -7, -3
    compiled = compile_torch(EveryReduction(), (x, index, src))
    tolerance = {"rtol": 2e-2, "atol": 1e-2} if dtype == torch.bfloat16 else {}
    _assert_matches(compiled(x, index, src), EveryReduction()(x, index, src), **tolerance)


class OlderScatters(torch.nn.Module):
    """scatter with reduce= of a tensor and of a number, and index_reduce."""

    def forward(self, x: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> Any:
        along, source = index[0, :3], torch.cat([src[:, :3], src[:1, :3]])  # (3, 3)
        return (
            x.scatter(1, index, src, reduce="add"),
            x.scatter(1, index, src, reduce="multiply"),
            x.scatter(1, index, 2.0, reduce="multiply"),
            *(x.index_reduce(1, along, source, reduce, include_self=include_self)
              for reduce in ("prod", "mean", "amax", "amin")
              for include_self in (True, False)),
        )  # fmt: skip


def test_scatter_with_reduce_and_index_reduce_match_eager() -> None:
    x, src = torch.randn(3, 5), torch.randn(2, 4)
    index = torch.tensor([[3, 3, 1, 0], [2, 2, 0, 2]])
    compiled = compile_torch(OlderScatters(), (x, index, src))
    _assert_matches(compiled(x, index, src), OlderScatters()(x, index, src))


def test_scatter_reduce_lowers_to_stablehlo_scatter() -> None:
    x, index = torch.zeros(3, 5), torch.tensor([[0, 1], [2, 2]])
    text = str(import_model(EveryReduction(), (x, index, torch.ones(2, 2))).module)
    assert "scatter_reduce" not in text and "stablehlo.scatter" in text
    assert "stablehlo.maximum" in text and "stablehlo.multiply" in text


class PutByMask(torch.nn.Module):
    def __init__(self, leading: int, accumulate: bool) -> None:
        super().__init__()
        self.leading, self.accumulate = leading, accumulate

    def forward(self, x: torch.Tensor, mask: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        indices = [None] * self.leading + [mask]
        return torch.ops.aten.index_put(x, indices, values, self.accumulate)


def _masks(shape: tuple[int, ...], generator: torch.Generator) -> list[torch.Tensor]:
    one = torch.zeros(shape, dtype=torch.bool)
    one.view(-1)[-1] = True
    return [
        torch.zeros(shape, dtype=torch.bool),
        one,
        torch.ones(shape, dtype=torch.bool),
        torch.rand(shape, generator=generator) > 0.5,
    ]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize(
    ("x_shape", "leading", "mask_shape", "values_shape"),
    [
        ((6,), 0, (6,), ()),
        ((4, 3), 0, (4,), (3,)),
        ((4, 3), 0, (4, 3), (1,)),
        ((2, 3, 4, 5), 1, (3, 4), (2, 1, 5)),
    ],
)
def test_put_by_mask_broadcast_values_match_eager(
    accumulate: bool,
    x_shape: tuple[int, ...],
    leading: int,
    mask_shape: tuple[int, ...],
    values_shape: tuple[int, ...],
) -> None:
    generator = torch.Generator().manual_seed(1)
    x, values = torch.randn(x_shape, generator=generator), torch.randn(values_shape)
    model = PutByMask(leading, accumulate)
    compiled = compile_torch(model, (x, _masks(mask_shape, generator)[-1], values))
    for mask in _masks(mask_shape, generator):
        assert torch.equal(compiled(x, mask, values), model(x, mask, values))


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_by_mask_one_value_per_true_element_matches_eager(accumulate: bool) -> None:
    x, values = torch.randn(2, 3, 4, 5), torch.randn(2, 3, 5)  # 3 true elements of a 3x4 mask
    model = PutByMask(1, accumulate)
    masks = [torch.zeros(3, 4, dtype=torch.bool) for _ in range(2)]
    masks[0][0, 1] = masks[0][2, 0] = masks[0][2, 3] = True
    masks[1][1] = True
    masks[1][1, 0] = False
    compiled = compile_torch(model, (x, masks[0], values))
    for mask in masks:
        assert torch.equal(compiled(x, mask, values), model(x, mask, values))
    one = torch.zeros(3, 4, dtype=torch.bool)
    one[0, 0] = True
    with pytest.raises(RuntimeError):
        model(x, one, values)
    with pytest.raises(AssertionFailed):  # not 3 values read as 1, nor past the end
        compiled(x, one, values)


class PutByRowsAndMask(torch.nn.Module):
    def forward(self, x: torch.Tensor, rows: torch.Tensor, mask: torch.Tensor, values: Any) -> Any:
        return (
            torch.ops.aten.index_put(x, (rows, mask), values),
            torch.ops.aten.index_put(x, (rows, mask), values, accumulate=True),
        )


def test_put_by_integers_and_mask_matches_eager() -> None:
    x, rows, values = torch.randn(5, 5), torch.tensor([0, 2, 0]), torch.randn(3)
    three = torch.tensor([True, False, True, True, False])
    compiled = compile_torch(PutByRowsAndMask(), (x, rows, three, values))
    for mask in (three, torch.tensor([False, False, False, True, False])):  # 3 or 1 true
        _assert_matches(compiled(x, rows, mask, values), PutByRowsAndMask()(x, rows, mask, values))
    with pytest.raises(AssertionFailed):  # 2 true elements do not broadcast with 3 rows
        compiled(x, rows, torch.tensor([True, True, False, False, False]), values)


class _MeanByDestination(torch.nn.Module):
    """A graph network's aggregation: the messages and their count added up by one index."""

    def forward(self, messages: torch.Tensor, destination: torch.Tensor) -> torch.Tensor:
        sums = torch.zeros(5, messages.shape[1]).index_add(0, destination, messages)
        counts = torch.zeros(5, 1).index_add(0, destination, torch.ones(len(destination), 1))
        return sums / counts.clamp_min(1)


def test_two_index_adds_by_one_index_match_eager() -> None:
    messages, destination = torch.randn(8, 3), torch.tensor([4, 0, 0, 2, 4, 4, 1, 0])
    expected = _MeanByDestination()(messages, destination)
    actual = compile_torch(_MeanByDestination(), (messages, destination))(messages, destination)
    torch.testing.assert_close(torch.as_tensor(actual), expected)
