"""`shlo-strip-data{max-elements=16}`: large constants become zero splats.

A module with gigabytes of weights is too big for a bug report; the same program with each
large constant replaced by a splat of zero keeps every op, shape and type, so it still parses,
verifies and compiles, and the weights' resource blobs are no longer printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.elementwise import zero_attribute
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass

_CONSTANTS = ("stablehlo.constant", "arith.constant")


@dataclass(frozen=True)
class StripDataOptions:
    max_elements: int = field(default=16, metadata={"help": "largest constant kept as is"})


def _strip(op: Any, limit: int) -> bool:
    value = constant_value(op)
    shaped = op.results[0].type if len(op.results) == 1 else None
    if value is None or not isinstance(shaped, ir.ShapedType) or not shaped.has_static_shape:
        return False
    if isinstance(value, ir.DenseElementsAttr) and value.is_splat:
        return False
    count = 1
    for dim in shaped.shape:
        count *= dim
    zero = zero_attribute(shaped.element_type)
    if count <= limit or zero is None:
        return False
    op.attributes["value"] = ir.DenseElementsAttr.get_splat(shaped, zero)
    return True


@register_pass("shlo-strip-data", options=StripDataOptions)
def strip_data(module: Any, options: StripDataOptions) -> None:
    """Replace constants of more than max-elements elements with zero splats."""
    if options.max_elements < 0:
        raise PassFailure(f"max-elements must be 0 or more, not {options.max_elements}")
    constants = [op for op in ops_in(module) if op.name in _CONSTANTS]
    with module.context, ir.Location.unknown():
        for op in constants:
            _strip(op, options.max_elements)
