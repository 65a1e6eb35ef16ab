"""Elementwise StableHLO built op by op, for passes that replace one op by a few.

Every op made here has the static shape of the value the builder was made from, so passes use
it on statically shaped float tensors only.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create
from shlo.ir.stablehlo import ir

FLOATS = ("f16", "bf16", "f32", "f64")
# The ops that compute each element of their result from the same element of each operand.
ELEMENTWISE = frozenset(
    f"stablehlo.{name}"
    for name in (
        "abs add and atan2 cbrt ceil clamp compare convert cosine divide exponential "
        "exponential_minus_one floor is_finite log log_plus_one logistic maximum minimum "
        "multiply negate not or power remainder round_nearest_afz round_nearest_even rsqrt "
        "select sign sine sqrt subtract tan tanh xor"
    ).split()
)


def static_float(value: Any) -> bool:
    """Whether `value` is a statically shaped tensor of a float type `Elementwise` handles."""
    kind = value.type
    return (
        isinstance(kind, ir.RankedTensorType)
        and kind.has_static_shape
        and str(kind.element_type) in FLOATS
    )


def zero_attribute(element: Any) -> Any:
    """The zero of a float, integer or index element type, as an attribute (None for others,
    such as complex)."""
    if isinstance(element, ir.FloatType):
        return ir.FloatAttr.get(element, 0.0)
    if isinstance(element, (ir.IntegerType, ir.IndexType)):
        return ir.IntegerAttr.get(element, 0)
    return None


def zeros(kind: Any) -> Any:
    """A new `stablehlo.constant` of zeros of the static tensor type `kind`."""
    splat = ir.DenseElementsAttr.get_splat(kind, zero_attribute(kind.element_type))
    return create("stablehlo.constant", kind, [], {"value": splat})


def compare(direction: str, a: Any, b: Any, kind: str = "FLOAT") -> Any:
    """`stablehlo.compare` of `a` and `b` (`direction` EQ, NE, LT, ...; `kind` FLOAT,
    SIGNED, ...), an i1 tensor of their shape."""
    shape = ir.RankedTensorType(a.type).shape
    attributes = {
        "comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"),
        "compare_type": ir.Attribute.parse(f"#stablehlo<comparison_type {kind}>"),
    }
    result = ir.RankedTensorType.get(shape, ir.IntegerType.get_signless(1))
    return create("stablehlo.compare", result, [a, b], attributes)


def logical(name: str, *values: Any) -> Any:
    """`stablehlo.<name>` (`and`, `or`, `not`, ...) of `values`, of the first one's type."""
    return create(f"stablehlo.{name}", values[0].type, values)


class Elementwise:
    """Ops on tensors of the shape and float element type of `like`."""

    def __init__(self, like: Any) -> None:
        self.type = ir.RankedTensorType(like.type)

    def constant(self, value: float) -> Any:
        splat = ir.DenseElementsAttr.get_splat(
            self.type, ir.FloatAttr.get(self.type.element_type, value)
        )
        return create("stablehlo.constant", self.type, [], {"value": splat})

    def unary(self, name: str, x: Any) -> Any:
        """`stablehlo.<name>` of `x`, of `x`'s type (abs, negate, floor, not, ...)."""
        return create(f"stablehlo.{name}", x.type, [x])

    def binary(self, name: str, a: Any, b: Any) -> Any:
        """`stablehlo.<name>` of `a` and `b`, of `a`'s type (multiply, and, or, ...)."""
        return create(f"stablehlo.{name}", a.type, [a, b])

    def negative(self, x: Any) -> Any:
        """Whether the sign bit of each element is set (true for -0, whose reciprocal is -inf).

        Read from float compares, not from the bits: IREE's Vulkan target narrows i64 to
        i32 and then fails on a bitcast of f64."""
        zero = self.constant(0.0)
        reciprocal = self.binary("divide", self.constant(1.0), x)
        signed_zero = self.binary("and", compare("EQ", x, zero), compare("LT", reciprocal, zero))
        return self.binary("or", compare("LT", x, zero), signed_zero)

    def is_value(self, x: Any, value: float) -> Any:
        """Whether `|x| == value`."""
        return compare("EQ", self.unary("abs", x), self.constant(value))

    def select(self, predicate: Any, yes: Any, no: Any) -> Any:
        return create("stablehlo.select", ir.RankedTensorType(yes.type), [predicate, yes, no])
