"""`shlo-atan2-edge-cases`: `atan2` where both operands are zero or both infinite, as C defines it.

IREE 3.13 computes `stablehlo.atan2` with a rational approximation of `y / x` that gives NaN
when that quotient is 0/0 or inf/inf, where C's `atan2` (and so PyTorch, NumPy and the
StableHLO interpreter) gives 0 or pi for two zeros and pi/4 or 3pi/4 for two infinities, with
the sign of `y`: `torch.angle(0j)` came out NaN.  This pass selects those answers for those
elements, reading the signs from the bits so that -0 counts as negative, and leaves every
other element to IREE's `atan2`.  Ops on dynamically shaped or non-float tensors are left as
they are.
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import create, rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_FLOATS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def _compare(direction: str, a: Any, b: Any, kind: str) -> Any:
    shape = ir.RankedTensorType(a.type).shape
    attributes = {
        "comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"),
        "compare_type": ir.Attribute.parse(f"#stablehlo<comparison_type {kind}>"),
    }
    result = ir.RankedTensorType.get(shape, ir.IntegerType.get_signless(1))
    return create("stablehlo.compare", result, [a, b], attributes)


class _Builder:
    """Elementwise StableHLO on tensors of one static shape and float element type."""

    def __init__(self, like: Any) -> None:
        self.type = ir.RankedTensorType(like.type)
        self.bits = _FLOATS[str(self.type.element_type)]

    def constant(self, value: float) -> Any:
        splat = ir.DenseElementsAttr.get_splat(
            self.type, ir.FloatAttr.get(self.type.element_type, value)
        )
        return create("stablehlo.constant", self.type, [], {"value": splat})

    def negative(self, x: Any) -> Any:
        """Whether the sign bit of each element is set (true for -0)."""
        integer = ir.RankedTensorType.get(self.type.shape, ir.IntegerType.get_signless(self.bits))
        bits = create("stablehlo.bitcast_convert", integer, [x])
        splat = ir.DenseElementsAttr.get_splat(integer, ir.IntegerAttr.get(integer.element_type, 0))
        zero = create("stablehlo.constant", integer, [], {"value": splat})
        return _compare("LT", bits, zero, "SIGNED")

    def is_value(self, x: Any, value: float) -> Any:
        """Whether `|x| == value`."""
        magnitude = create("stablehlo.abs", self.type, [x])
        return _compare("EQ", magnitude, self.constant(value), "FLOAT")

    def select(self, predicate: Any, yes: Any, no: Any) -> Any:
        return create("stablehlo.select", ir.RankedTensorType(yes.type), [predicate, yes, no])

    def both(self, a: Any, b: Any) -> Any:
        return create("stablehlo.and", ir.RankedTensorType(a.type), [a, b])


def _with_edge_cases(op: Any) -> None:
    kind = op.results[0].type
    if not isinstance(kind, ir.RankedTensorType) or not kind.has_static_shape:
        return
    if str(kind.element_type) not in _FLOATS:
        return
    y, x = op.operands
    build = _Builder(op.results[0])
    x_negative = build.negative(x)
    zeros = build.both(build.is_value(y, 0.0), build.is_value(x, 0.0))
    infinities = build.both(build.is_value(y, math.inf), build.is_value(x, math.inf))
    on_zeros = build.select(x_negative, build.constant(math.pi), build.constant(0.0))
    on_infinities = build.select(
        x_negative, build.constant(3 * math.pi / 4), build.constant(math.pi / 4)
    )
    magnitude = build.select(zeros, on_zeros, on_infinities)
    negated = create("stablehlo.negate", build.type, [magnitude])
    signed = build.select(build.negative(y), negated, magnitude)
    either = create("stablehlo.or", ir.RankedTensorType(zeros.type), [zeros, infinities])
    # a fresh atan2 (the old op is replaced by the select that uses it)
    computed = create("stablehlo.atan2", build.type, [y, x])
    op.results[0].replace_all_uses_with(build.select(either, signed, computed))
    op.erase()


@register_pass("shlo-atan2-edge-cases")
def atan2_edge_cases(module: Any, options: None) -> None:
    """Give `atan2` C's answers where both operands are zero or both are infinite."""
    rewrite_each(module, "stablehlo.atan2", _with_edge_cases)
