"""`shlo-atan2-edge-cases`: `atan2` where both operands are zero or both infinite, as C defines it.

IREE 3.13 computes `stablehlo.atan2` with a rational approximation of `y / x` that gives NaN
when that quotient is 0/0 or inf/inf, where C's `atan2` (and so PyTorch, NumPy and the
StableHLO interpreter) gives 0 or pi for two zeros and pi/4 or 3pi/4 for two infinities, with
the sign of `y`: `torch.angle(0j)` came out NaN.  Its result also loses the sign of `y` where
`y / x` rounds to zero and `x` is negative (`atan2(-1, -inf)` and `atan2(-0.0, -1)` gave pi,
not -pi).  This pass selects C's answers for the zeros and infinities, takes the magnitude of
IREE's `atan2` for every other element, and gives each result the sign of `y`, read from the
bits so that -0 counts as negative (C's `atan2` always has the sign of `y`).  Ops on
dynamically shaped or non-float tensors are left as they are.
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import create, rewrite_each
from shlo.ir.elementwise import Elementwise, static_float
from shlo.pipeline.python_pass import register_pass


def _with_edge_cases(op: Any) -> None:
    if not static_float(op.results[0]):
        return
    y, x = op.operands
    build = Elementwise(op.results[0])
    x_negative = build.negative(x)
    zeros = build.binary("and", build.is_value(y, 0.0), build.is_value(x, 0.0))
    infinities = build.binary("and", build.is_value(y, math.inf), build.is_value(x, math.inf))
    on_zeros = build.select(x_negative, build.constant(math.pi), build.constant(0.0))
    on_infinities = build.select(
        x_negative, build.constant(3 * math.pi / 4), build.constant(math.pi / 4)
    )
    either = build.binary("or", zeros, infinities)
    # a fresh atan2 (the old op is replaced by the select that uses it)
    computed = create("stablehlo.atan2", build.type, [y, x])
    magnitude = build.select(
        either,
        build.select(zeros, on_zeros, on_infinities),
        build.unary("abs", computed),
    )
    negated = build.unary("negate", magnitude)
    op.results[0].replace_all_uses_with(build.select(build.negative(y), negated, magnitude))
    op.erase()


@register_pass("shlo-atan2-edge-cases")
def atan2_edge_cases(module: Any, options: None) -> None:
    """Give `atan2` C's answers where both operands are zero or both are infinite."""
    rewrite_each(module, "stablehlo.atan2", _with_edge_cases)
