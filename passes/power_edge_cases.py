"""`shlo-power-edge-cases`: `power` of a negative or zero base, as C's `pow` defines it.

IREE 3.13 computes `stablehlo.power` of floats as if the base were positive: on llvm-cpu
`pow(-0.42, 1.0)` came out NaN, and on Vulkan (whose GLSL `pow` leaves `x < 0` and `x = 0,
y <= 0` undefined) every negative base gave NaN, also for exponents 0 and 2, and an f64
`(a - b) ** 2` summed to NaN.  C's `pow` (and so PyTorch, NumPy and the StableHLO
interpreter) gives `pow(|x|, y)` with the sign of `x` for an odd integer `y`, NaN for a
finite negative `x` and a non-integer `y` (`pow(-inf, 2.5)` is inf), infinity for a zero
base and a negative `y`, and 1 for `y = 0`, for `x = 1` and for `|x| = 1, |y| = inf`.  This
pass computes `power` of `|x|` and selects those answers.  Ops on dynamically shaped
tensors are left as they are.
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import create, rewrite_each
from shlo.ir.elementwise import Elementwise, compare, static_float
from shlo.pipeline.python_pass import register_pass


def _with_edge_cases(op: Any) -> None:
    if not static_float(op.results[0]):
        return
    x, y = op.operands
    build = Elementwise(op.results[0])
    magnitude = build.unary("abs", x)
    whole = compare("EQ", build.unary("floor", y), y)
    half = build.binary("multiply", y, build.constant(0.5))
    odd = build.binary("and", whole, compare("NE", build.unary("floor", half), half))
    computed = create("stablehlo.power", build.type, [magnitude, y])
    zero_base = build.binary("and", build.is_value(x, 0.0), compare("LT", y, build.constant(0.0)))
    result = build.select(zero_base, build.constant(math.inf), computed)
    result = build.select(
        build.binary("and", build.negative(x), odd), build.unary("negate", result), result
    )
    finite_negative = build.binary(
        "and",
        compare("LT", x, build.constant(0.0)),
        build.unary("not", build.is_value(x, math.inf)),
    )
    fractional = build.binary("and", finite_negative, build.unary("not", whole))
    result = build.select(fractional, build.constant(math.nan), result)
    ones = build.binary(
        "or",
        build.binary("or", build.is_value(y, 0.0), compare("EQ", x, build.constant(1.0))),
        build.binary("and", build.is_value(x, 1.0), build.is_value(y, math.inf)),
    )
    op.results[0].replace_all_uses_with(build.select(ones, build.constant(1.0), result))
    op.erase()


@register_pass("shlo-power-edge-cases")
def power_edge_cases(module: Any, options: None) -> None:
    """Give `power` C's answers for negative and zero bases."""
    rewrite_each(module, "stablehlo.power", _with_edge_cases)
