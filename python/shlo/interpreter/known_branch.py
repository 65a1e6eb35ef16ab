"""The branch an `if` or `case` is known to take before the program runs.

In a process's copy `replica_id` and `partition_id` are constants, so a branch chosen by them
(`compare EQ, replica_id, 0`) is known: such a branch is spliced into the process's ops, and
its collectives meet at the level around it, as upstream's processes in different branches do.
Only constants, integer conversions and comparisons of integer scalars are read; anything else
is decided at run time.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from shlo.ir.stablehlo import ir

_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "EQ": operator.eq,
    "NE": operator.ne,
    "LT": operator.lt,
    "LE": operator.le,
    "GT": operator.gt,
    "GE": operator.ge,
}


def _integer_scalar(value: Any) -> ir.IntegerType | None:
    """The element type of an integer (or boolean) scalar tensor value, else None."""
    if not isinstance(value.type, ir.RankedTensorType):
        return None
    tensor = ir.RankedTensorType(value.type)
    element = tensor.element_type
    if tensor.shape or not isinstance(element, ir.IntegerType):
        return None
    return ir.IntegerType(element)


def _wrapped(number: int, element: ir.IntegerType) -> int:
    """`number` as an integer of `element`'s width and signedness holds it."""
    width = element.width
    number &= (1 << width) - 1
    if width > 1 and not element.is_unsigned and number >> (width - 1):
        number -= 1 << width
    return number


def known_value(value: Any) -> int | None:
    """The integer an integer scalar always holds, when constants alone decide it."""
    element = _integer_scalar(value)
    owner = value.owner
    if element is None or isinstance(owner, ir.Block):
        return None
    name = owner.name
    if name == "stablehlo.constant":
        dense = ir.DenseIntElementsAttr(owner.attributes["value"])
        return _wrapped(int(dense[0]), element)
    if name == "stablehlo.convert" and (number := known_value(owner.operands[0])) is not None:
        return _wrapped(number, element)
    if name == "stablehlo.compare":
        lhs, rhs = (known_value(v) for v in owner.operands)
        direction = str(owner.attributes["comparison_direction"]).split()[-1].rstrip(">")
        if lhs is None or rhs is None or "compare_type" in owner.attributes:
            return None
        return int(_COMPARE[direction](lhs, rhs))
    return None


def known_branch(op: Any) -> int | None:
    """The branch `op` (an `if` or `case`) takes whatever the run, if that is known."""
    if len(op.regions) == 1:
        return 0
    selector = known_value(op.operands[0])
    if selector is None:
        return None
    if op.name == "stablehlo.if":
        return 0 if selector else 1
    return selector if 0 <= selector < len(op.regions) else len(op.regions) - 1
