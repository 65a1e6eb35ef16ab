"""`shlo-exp-overflow`: f32 `exponential` is infinite where it overflows, before an add or subtract
uses it.

IREE 3.13's llvm-cpu code for f32 `exp` ends in a multiply by a power of two, which LLVM
contracts with an add or subtract that uses the result into one fused multiply-add: the
product that overflows to infinity on its own is kept exact inside the fused operation, so
`exp(x) - y` came out -inf where eager's `exp(x)` is inf and `inf - inf` is NaN (PyTorch's
`poisson_nll_loss`, `exp(input) - target * input`, at an infinite input and target).  This
pass selects +inf for every x above the largest f32 whose exponential is finite, which
leaves nothing to contract there, where an `exponential` has an add or subtract among its
users: only those contract (a reduction's sum of exponentials starts at zero and only
grows, and a softmax keeps the form IREE recognizes).  f64, f16, bf16 (computed in f32 and
rounded) and `exponential_minus_one` were measured right and are left alone, as are dynamic
shapes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from shlo.ir.edit import create, rewrite_each
from shlo.ir.elementwise import Elementwise, compare, static_float
from shlo.pipeline.python_pass import register_pass

# the largest f32 whose exponential rounds to a finite f32 (the next one's is inf)
_LAST_FINITE = float(np.float32(88.72283))
_CONTRACTED = ("stablehlo.add", "stablehlo.subtract")


def _infinite_past_overflow(op: Any) -> None:
    if not static_float(op.results[0]) or str(op.results[0].type.element_type) != "f32":
        return
    if not any(use.owner.name in _CONTRACTED for use in op.results[0].uses):
        return
    (x,) = op.operands
    build = Elementwise(op.results[0])
    computed = create("stablehlo.exponential", build.type, [x])
    overflows = compare("GT", x, build.constant(_LAST_FINITE))
    op.results[0].replace_all_uses_with(build.select(overflows, build.constant(math.inf), computed))
    op.erase()


@register_pass("shlo-exp-overflow")
def exp_overflow(module: Any, options: None) -> None:
    """Give f32 `exponential` its infinity past overflow where an add or subtract uses it."""
    rewrite_each(module, "stablehlo.exponential", _infinite_past_overflow)
