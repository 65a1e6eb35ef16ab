"""A compiled model called wrongly from Python says which argument is wrong, in the caller's
terms (its position and the path inside it), never in @main's input numbers or as two pytree
specs; the model's state comes first among @main's inputs, so those numbers would mislead."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from shlo.api import compile_torch
from shlo.errors import FrontendError, RunError


class _StatefulPair(torch.nn.Module):
    """Batch norm in training mode updates its running statistics: @main takes them first."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.BatchNorm1d(3)

    def forward(self, x: torch.Tensor, pair: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
        return self.norm(x) + pair[0] * pair[1]


@pytest.fixture(scope="module")
def compiled() -> Any:
    x = torch.randn(4, 3)
    return compile_torch(_StatefulPair().train(), (x, (x, x)))


def _x() -> torch.Tensor:
    return torch.randn(4, 3)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (
            (_x(), (_x(), torch.randn(5, 3))),
            {},
            r"argument 1\[1\]: expected shape 4x3, got \(5, 3\)",
        ),
        (
            (_x().double(), (_x(), _x())),
            {},
            r"argument 0: expected dtype float32 \(f32\), got float64",
        ),
        ((_x(), [_x(), _x()]), {}, "argument 1: expected a tuple of 2, got a list of 2"),
        ((_x(), (_x(),) * 3), {}, "argument 1: expected a tuple of 2, got a tuple of 3"),
        (
            (None, (_x(), _x())),
            {},
            "argument 0 is None, where the model was compiled with a tensor",
        ),
        ((torch.empty(4, 3, device="meta"), (_x(), _x())), {}, "argument 0 is a meta tensor"),
        (
            (),
            {"x": _x(), "pair": (_x(), _x())},
            "expected 2 arguments, got 0 and keyword arguments x, pair; pass them by position",
        ),
    ],
)
def test_a_wrong_call_names_the_argument(
    compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(RunError, match=message):
        compiled(*args, **kwargs)


def test_the_right_call_still_runs(compiled: Any) -> None:
    assert compiled(_x(), (_x(), _x())).shape == (4, 3)


def test_a_function_compiles_as_a_module_would() -> None:
    x = torch.randn(3, 4)
    compiled = compile_torch(lambda a, b=2.0: torch.tanh(a) * b, (x,))
    torch.testing.assert_close(compiled(x), torch.tanh(x) * 2.0)


@pytest.mark.parametrize(
    ("model", "args", "message"),
    [
        (torch.nn.Linear(4, 2), torch.ones(3, 4), "the example inputs must be a tuple, got Tensor"),
        ("a model", (torch.ones(3, 4),), "expected a torch.nn.Module or a function, got str"),
    ],
    ids=["tensor-for-args", "not-callable"],
)
def test_a_wrong_compile_call_says_what_it_expected(model: Any, args: Any, message: str) -> None:
    with pytest.raises(FrontendError) as raised:
        compile_torch(model, args)
    assert str(raised.value).startswith(message)
