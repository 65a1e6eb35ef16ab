"""Values computed from constants alone are computed at import by eager's kernels and kept as
constants; random draws and values too large for a table stay in the module."""

from __future__ import annotations

import torch

from shlo.api import compile_torch, import_model
from shlo.frontend.constant_values import LIMIT


class Fractions(torch.nn.Module):
    """The fractional parts of evenly spaced positions, as an interpolation takes them."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(self.count, dtype=torch.float32) * 0.6
        return x + (positions - positions.floor())


def test_a_table_of_constants_is_eagers_own_and_a_constant() -> None:
    x = torch.zeros(11)
    module = import_model(Fractions(11), (x,)).module.text()
    assert "iota" not in module and "floor" not in module
    assert torch.equal(compile_torch(Fractions(11), (x,))(x), Fractions(11)(x))


def test_a_table_larger_than_the_limit_stays_in_the_module() -> None:
    x = torch.zeros(LIMIT + 1)
    assert "iota" in import_model(Fractions(LIMIT + 1), (x,)).module.text()


class Noisy(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.rand(64) * 2


def test_random_draws_stay_draws() -> None:
    """A draw from constants alone is still drawn in the module (by `shlo-hashed-rng` on IREE),
    not fixed to the numbers eager happened to draw at import."""
    module = import_model(Noisy(), (torch.zeros(64),)).module.text()
    assert "stablehlo.rng" in module and "dense_resource" not in module
