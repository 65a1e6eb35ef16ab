"""Python numbers read from tensors (`int(t)`, `float(t)`, `bool(t)`, `t.item()`) and the
arithmetic on them, compiled and checked against eager: values and Python types."""

from __future__ import annotations

import math

import pytest
import torch

from shlo.api import compile_torch
from shlo.errors import FrontendError

aten = torch.ops.aten


class PythonArithmetic(torch.nn.Module):
    """Python's operators and `math` on numbers read from tensors of several dtypes."""

    def forward(self, i: torch.Tensor, f: torch.Tensor, b: torch.Tensor) -> tuple:
        n, x = int(i), float(f)
        return (
            n % 3,  # Python's sign (the divisor's), not C's
            n // 4,
            math.ceil(x),
            math.floor(x),
            x**2,
            n**2,
            math.sqrt(abs(x)),
            n / 4,
            x > -1.0,
            bool(b),
            -n + x,
        )


class AtenScalarOps(torch.nn.Module):
    """ATen's scalar ops called directly on numbers read from tensors, and its conversions of
    one-element tensors into numbers."""

    def forward(self, i: torch.Tensor, j: torch.Tensor, f: torch.Tensor) -> tuple:
        n, m, x = int(i), int(j), float(f)
        return (
            aten.div(n, m),
            aten.sqrt(m),
            aten.ceil(x),
            aten.remainder(n, m),
            aten.floordiv(n, m),
            aten.ge(n, m),
            aten.mul(x, n),
            aten.Int(f),
            aten.Float(i),
            aten.FloatImplicit(f),
            aten.IntImplicit(j),
            aten.ScalarImplicit(f),
        )


def _assert_same(got: tuple, want: tuple) -> None:
    assert [type(g) for g in got] == [type(w) for w in want]
    for g, w in zip(got, want, strict=True):
        if isinstance(w, torch.Tensor):
            torch.testing.assert_close(g, w)
        else:
            assert g == pytest.approx(w, rel=1e-6, nan_ok=True), (got, want)


@pytest.mark.parametrize(
    "args",
    [
        (torch.tensor(-7), torch.tensor(2.5, dtype=torch.float64), torch.tensor(True)),
        (torch.tensor([13], dtype=torch.int32), torch.tensor(-1.25), torch.tensor([[False]])),
    ],
    ids=["int64-f64-bool", "int32-f32-one-element"],
)
def test_python_arithmetic_on_numbers_from_tensors(args: tuple) -> None:
    """torch-mlir imported `%` of numbers as C's fmod, and no `math.ceil`, `**`, `sqrt` or
    `bool(t)` at all."""
    model = PythonArithmetic()
    compiled = compile_torch(model, args)
    _assert_same(compiled(*args), model(*args))
    other = (-args[0] + 5, args[1] * -3, ~args[2])  # the numbers are inputs, not constants
    _assert_same(compiled(*other), model(*other))


def test_aten_scalar_ops_on_numbers_from_tensors() -> None:
    """torch.export failed on ATen's scalar ops given a number read from a tensor."""
    model = AtenScalarOps()
    args = (torch.tensor(-9), torch.tensor(4), torch.tensor(-2.75, dtype=torch.float64))
    compiled = compile_torch(model, args)
    _assert_same(compiled(*args), model(*args))
    other = (torch.tensor(11), torch.tensor(-3), torch.tensor(0.5, dtype=torch.float64))
    _assert_same(compiled(*other), model(*other))


class ScaleByRemainder(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: int) -> torch.Tensor:
        return x * (n % 3)


def test_python_int_input_keeps_pythons_remainder_and_refuses_a_float() -> None:
    """A Python int the model takes travels as a 0-d tensor read back with `.item()`: its
    remainder was C's fmod (-1 for -7 % 3, eager 2); a float in its place is refused by name."""
    model = ScaleByRemainder()
    x = torch.arange(4.0)
    compiled = compile_torch(model, (x, 4))
    torch.testing.assert_close(compiled(x, -7), model(x, -7))
    with pytest.raises(FrontendError, match=r"argument args\[1\] is float"):
        compiled(x, 2.0)


class Shapes(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return x.shape, torch.broadcast_shapes(x.shape, (1, 3)), torch.Size([]), {"n": [x.shape]}


def test_sizes_come_back_as_sizes() -> None:
    """torch's pytree rebuilds a torch.Size output as a tuple; eager returns a Size."""
    x = torch.ones(2, 1)
    got, want = compile_torch(Shapes(), (x,))(x), Shapes()(x)
    assert got == want
    assert [type(g) for g in got[:3]] == [torch.Size] * 3
    assert type(got[3]["n"][0]) is torch.Size
