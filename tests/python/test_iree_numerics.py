"""Numbers IREE 3.13 got wrong with no error, each now right or refused: `power` of negative
bases (llvm-cpu and Vulkan), sorts that read one iota, and reductions of more than 65,535
elements per result on Vulkan (sums, norms, softmax, variance and matmuls right; scans, argmax
and convolutions refused)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from torch.testing import assert_close

from shlo.api import CompileError, compile_torch
from zoo import Apply

BASES = torch.tensor([-2.0, -2.0, -2.0, -0.5, 0.0, -0.0, 0.0, -3.0, 1.0, -1.0, 2.0, -0.42])
EXPONENTS = torch.tensor([2.0, 3.0, 0.5, 1.0, -1.0, -1.0, 0.0, 0.0, 7.5, float("inf"), -2, 1.0])


@pytest.mark.parametrize("target", ["llvm-cpu", "vulkan"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_power_of_negative_and_zero_bases_matches_eager(target: str, dtype: torch.dtype) -> None:
    """IREE gave NaN for `pow(-0.42, 1.0)` on llvm-cpu and for every negative base on Vulkan."""
    x, y = BASES.to(dtype), EXPONENTS.to(dtype)
    compiled = compile_torch(Apply(torch.pow), (x, y), target=target)
    assert_close(compiled(x, y), torch.pow(x, y), equal_nan=True)


def test_squared_difference_in_f64_on_vulkan() -> None:
    """f32 against f64 `mse_loss`: `(a - b) ** 2` summed to NaN on Vulkan."""
    x, y = torch.rand(2, 4) - 0.5, torch.rand(2, 4).double()
    loss = Apply(lambda a, b: torch.nn.functional.mse_loss(a, b, reduction="sum"))
    assert_close(compile_torch(loss, (x, y), target="vulkan")(x, y), loss(x, y))


LONG_ROWS = [
    (lambda x: x.sum(1), torch.ones(2, 70000)),
    (lambda x: x.double().sum(dim=(0, 2)), torch.ones(300, 2, 300)),
    (
        lambda x: x.softmax(1)[:, 68990:69010],
        torch.ones(3, 70000).index_fill(1, torch.tensor([69000]), 5.0),
    ),
    (lambda x: torch.ops.aten.var(x, dim=[2, 3], correction=2), torch.rand(3, 4, 256, 512) + 100),
    (lambda x: x @ x.T, torch.rand(3, 70000)),
    (lambda x: torch.bmm(x, x.transpose(1, 2)), torch.rand(2, 3, 70000)),
]


@pytest.mark.parametrize(
    ("function", "x"), LONG_ROWS, ids=["sum", "f64_sum", "softmax", "var", "matmul", "bmm"]
)
def test_reductions_of_long_rows_on_vulkan(function: Callable[..., Any], x: torch.Tensor) -> None:
    """Vulkan summed only the first 65,535 elements of each row or contraction (70,000 ones
    gave 65,535)."""
    compiled = compile_torch(Apply(function), (x,), target="vulkan")
    assert_close(compiled(x), function(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "function",
    [
        lambda x: x.cumsum(1),
        lambda x: x.argmax(1),
        lambda x: torch.nn.functional.conv1d(x[None, :1], x[None, :1]),
    ],
    ids=["cumsum", "argmax", "conv1d"],
)
def test_scans_and_argmax_of_long_rows_are_refused_on_vulkan(function: Callable[..., Any]) -> None:
    x = torch.ones(3, 70000)
    with pytest.raises(CompileError, match="combines 70,000 elements into each result"):
        compile_torch(Apply(function), (x,), target="vulkan")


def test_dequantized_int8_convolution_on_vulkan() -> None:
    """Vulkan computed the dequantization fused into the convolution up to 13 off."""
    torch.manual_seed(0)
    a = torch.randint(-128, 127, (2, 3, 12, 12), dtype=torch.int8)
    w = torch.randint(-128, 127, (3, 3, 5, 3), dtype=torch.int8)
    conv = Apply(
        lambda a, w: torch.nn.functional.conv2d((a.int() - 7) * 0.01, (w.int() - 3) * 0.01)
    )
    assert_close(compile_torch(conv, (a, w), target="vulkan")(a, w), conv(a, w))


class Sorts(torch.nn.Module):
    """Sorts of one shape along both dimensions, of one tensor both ways, and a top-k."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.sort(x, dim=-1, stable=True).indices,
            torch.sort(x, dim=-1, descending=True, stable=True).indices,
            torch.argsort(y, dim=-1, stable=True),
            torch.argsort(y, dim=0, stable=True),
            torch.sort(x + 1, dim=0, descending=True, stable=True).indices,
            torch.topk(y, 3).values,
        )


@pytest.mark.parametrize("target", ["llvm-cpu", "vulkan"])
@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.float32])
def test_sorts_that_read_one_iota_match_eager_at_every_call(
    target: str, dtype: torch.dtype
) -> None:
    """IREE sorted one shared index iota in place for every sort that read it: the integer
    sorts' indices came back wrong at the first call, and others from the second call on."""
    generator = torch.Generator().manual_seed(1)
    draws = [
        tuple(torch.randint(-5, 5, (5, 12), generator=generator).to(dtype) for _ in range(2))
        for _ in range(3)
    ]
    compiled = compile_torch(Sorts(), draws[0], target=target)
    for x, y in draws:
        assert_close(compiled(x, y), Sorts()(x, y), rtol=0, atol=0)
