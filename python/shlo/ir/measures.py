"""Measures of an op that passes and stages both read: how many products each element sums."""

from __future__ import annotations

import math
from typing import Any, cast

from shlo.ir.stablehlo import ConvDimensionNumbers, DotDimensionNumbers, ir


def contraction_depth(op: Any) -> int:
    """How many products a dot, dot_general or convolution with static operand shapes sums
    into each element of its result."""
    lhs, rhs = (ir.ShapedType(v.type) for v in op.operands[:2])
    if op.name == "stablehlo.dot":
        return cast(int, lhs.shape[-1])
    if op.name == "stablehlo.dot_general":
        numbers = DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        return math.prod(lhs.shape[d] for d in numbers.lhs_contracting_dimensions)
    numbers = ConvDimensionNumbers(op.attributes["dimension_numbers"])
    features: int = rhs.shape[numbers.kernel_input_feature_dimension]
    window: int = math.prod(rhs.shape[d] for d in numbers.kernel_spatial_dimensions)
    return features * window
