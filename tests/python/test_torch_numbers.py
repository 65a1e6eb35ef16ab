"""A Python number given at call time with another type than at compile time (bool, int or
float, each way) is computed as eager computes it or refused naming the argument: never
computed in the type of the first call.  (A bool stays fixed, as it may decide a branch: any
other bool is refused too.)"""

from __future__ import annotations

import re

import pytest
import torch

from shlo.api import ShloError, compile_torch

NUMBERS = {"bool": True, "int": 3, "float": 2.5}


class Scaled(torch.nn.Module):
    def forward(self, x: torch.Tensor, factor: float) -> torch.Tensor:
        return x * factor


@pytest.mark.parametrize("compiled_with", NUMBERS)
def test_a_number_of_another_type_is_computed_as_eager_or_refused_naming_it(
    compiled_with: str,
) -> None:
    x = torch.arange(-3, 3, dtype=torch.int64)
    model = Scaled()
    compiled = compile_torch(model, (x, NUMBERS[compiled_with]))
    for kind, number in NUMBERS.items():
        for value in (number, not number if kind == "bool" else -number):
            try:
                got = compiled(x, value)
            except ShloError as error:
                assert (kind, value) != (compiled_with, NUMBERS[compiled_with]), error
                assert re.match(r"argument args\[1\] (was|is) ", str(error)), error
                continue
            torch.testing.assert_close(got, model(x, value), rtol=0, atol=0)
