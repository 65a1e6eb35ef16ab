"""`shlo-unsigned-shift-right-logical`: an arithmetic right shift of unsigned integers written
as the logical shift it is.

An unsigned value has no sign bit, so StableHLO's `shift_right_arithmetic` of unsigned
integers shifts in zeros (torch-mlir writes every `>>` that way, PyTorch's uint8 ones too).
IREE lowers unsigned types to signless ones and shifts in copies of the top bit: `200 >> 1`
of uint8 came back 228 instead of 100.  `shift_right_logical` is the same function on
unsigned integers, and IREE computes it right.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _logical(op: Any) -> None:
    kind = op.result.type
    element = kind.element_type if isinstance(kind, ir.ShapedType) else kind
    if not (isinstance(element, ir.IntegerType) and element.is_unsigned):
        return
    shifted = ir.Operation.create(
        "stablehlo.shift_right_logical", results=[kind], operands=list(op.operands)
    )
    op.result.replace_all_uses_with(shifted.result)
    op.erase()


@register_pass("shlo-unsigned-shift-right-logical")
def unsigned_shift_right_logical(module: Any, options: None) -> None:
    """Write each arithmetic right shift of unsigned integers as a logical one."""
    rewrite_each(module, "stablehlo.shift_right_arithmetic", _logical)
