"""Results whose length the input values decide (`unique`, `unique_consecutive`, `nonzero`,
`masked_select`, `x[:int(n)]`), compiled once for llvm-cpu and compared with eager on inputs
of every length (all equal, all distinct, all zero, NaN, signed zeros, infinities): values,
dtypes, shapes and the sign of each zero."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from shlo.api import compile_torch
from shlo.errors import BundleError, FrontendError
from shlo.torch.bundle import save_bundle
from zoo import Apply

NAN, INF = float("nan"), float("inf")
_FLOATS = [
    torch.tensor(
        [3.0, 1.0, 2.0, 3.0, NAN, 1.0, NAN, -0.0, 0.0, 7.0, INF, -INF, 2.0, 6.0, 0.0, 5.0]
    ),
    torch.zeros(16),
    torch.full((16,), 2.5),
    torch.arange(16.0).flip(0),
    torch.tensor([-0.0, 0.0] * 8),
]


def _same(actual: Any, expected: Any) -> None:
    """Equal structure, dtypes, shapes and values, NaN where eager has it, zeros of its sign."""
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            _same(a, e)
        return
    torch.testing.assert_close(actual, expected, rtol=0, atol=0, equal_nan=True)
    if expected.dtype.is_floating_point:
        assert torch.equal(torch.signbit(actual), torch.signbit(expected))
    assert actual.is_contiguous()


def _compiled_on(fn: Callable[..., Any], inputs: list[torch.Tensor]) -> None:
    compiled = compile_torch(Apply(fn), (inputs[0],), target="llvm-cpu", device="local-sync")
    for x in inputs:
        _same(compiled(x), fn(x))


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: torch.unique(x, return_inverse=True, return_counts=True),
        lambda x: torch.unique(x.reshape(4, 4), sorted=False),
        lambda x: torch.unique_consecutive(x, return_inverse=True, return_counts=True),
        lambda x: torch.unique_consecutive(x.reshape(4, 4), return_counts=True, dim=1),
        lambda x: torch.nonzero(x.reshape(2, 8)),
        lambda x: torch.nonzero(x.reshape(2, 8), as_tuple=True),
        lambda x: (torch.masked_select(x, x > 2), x * 2),
        lambda x: (x[x > 1], x.reshape(8, 2)[x[::2] == x[::2]], x[torch.isnan(x)]),
    ],
    ids=[
        "unique",
        "unique_2d",
        "unique_consecutive",
        "consecutive_columns",
        "nonzero",
        "nonzero_as_tuple",
        "masked_select",
        "masks",
    ],  # fmt: skip
)
def test_ops_whose_length_the_values_decide_match_eager(fn: Callable[..., Any]) -> None:
    _compiled_on(fn, _FLOATS)


def test_unique_rows_of_integers_and_bools_match_eager() -> None:
    """Rows in lexicographic order, each row's group and each group's count."""

    def rows(x: torch.Tensor) -> Any:
        ints = x.reshape(8, 2) % 3
        return (
            torch.unique(ints, dim=0, return_inverse=True, return_counts=True),
            torch.unique(ints > 0, dim=1, return_counts=True),
            torch.unique_consecutive(ints, dim=0, return_inverse=True),
        )

    inputs = [torch.tensor(v, dtype=torch.int64) for v in ([5, -7, 0, 2, 9, 9, 1, 4] * 2,)]
    _compiled_on(rows, [*inputs, torch.zeros(16, dtype=torch.int64), torch.arange(16) * 7])


def test_unique_of_nothing_and_of_a_number_match_eager() -> None:
    _compiled_on(
        lambda x: (
            torch.unique(x[:0], return_inverse=True), torch.nonzero(x[3]), x[3].unique(),
            torch.unique_consecutive(x.reshape(2, 8)[:, :0], return_counts=True, dim=1),
        ),
        [_FLOATS[0], _FLOATS[1]],
    )  # fmt: skip


def test_a_prefix_as_long_as_a_number_read_from_a_tensor_matches_eager() -> None:
    """`x[:int(n)]` for any n, out of range and negative ones included, as Python slices."""

    def prefix(x: torch.Tensor, n: torch.Tensor) -> Any:
        return x[: int(n)]

    x = torch.arange(5.0)
    compiled = compile_torch(Apply(prefix), (x, torch.tensor(3)), target="llvm-cpu")
    for n in (3, 0, 5, 7, -2, -9):
        _same(compiled(x, torch.tensor(n)), prefix(x, torch.tensor(n)))


def test_a_length_read_from_the_data_that_the_model_computes_on_is_refused() -> None:
    class Further(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> Any:
            return torch.unique(x) * 2

    with pytest.raises(FrontendError, match="depends on the input values") as info:
        compile_torch(Further(), (torch.rand(8),))
    assert "test_data_dependent_lengths.py:" in str(info.value)


def test_unique_rows_of_floats_follow_atens_sort_where_nan_leaves_no_order() -> None:
    """ATen compares rows by `<` and `>` column by column, NaN neither; of at most 16 rows its
    std::sort is an insertion sort, whose order is followed step by step."""

    def rows(x: torch.Tensor) -> Any:
        return (
            torch.unique(x, dim=0, return_inverse=True, return_counts=True),
            torch.unique(x, dim=1, return_counts=True),
        )

    generator = torch.Generator().manual_seed(3)
    inputs = []
    for _ in range(12):
        x = torch.randint(-2, 3, (12, 3), generator=generator).float()
        x[torch.rand(12, 3, generator=generator) < 0.15] = NAN
        x[torch.rand(12, 3, generator=generator) < 0.1] = -0.0
        inputs.append(x)
    _compiled_on(rows, inputs)


def test_unique_of_more_than_16_float_rows_is_refused() -> None:
    with pytest.raises(FrontendError, match="aten.unique_dim.default"):
        compile_torch(Apply(lambda x: torch.unique(x, dim=0)), (torch.rand(17, 2),))


def test_a_bundle_refuses_a_result_whose_length_the_values_decide(tmp_path: Any) -> None:
    with pytest.raises(BundleError, match="length depends on the input values"):
        save_bundle(Apply(torch.unique), (torch.rand(8),), tmp_path / "b")
    assert not (tmp_path / "b").exists()


def test_unique_along_a_dim_of_one_slice_matches_eager() -> None:
    _compiled_on(
        lambda x: (
            torch.unique_consecutive(x.reshape(4, 1, 4), dim=1, return_counts=True),
            torch.unique(x.reshape(4, 1, 4).long(), dim=1, return_inverse=True),
        ),
        _FLOATS[1:],
    )
