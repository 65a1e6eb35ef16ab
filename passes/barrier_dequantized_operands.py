"""`shlo-barrier-dequantized-operands`: a dequantized convolution or matmul operand is computed
in a dispatch of its own.

A quantized model dequantizes 8- or 16-bit integers (`convert`, subtract the zero point,
scale) right before a convolution or matmul.  IREE 3.13's Vulkan target fuses that
dequantization into the convolution's or matmul's dispatch and then computes it wrong (an
int8 convolution came out up to 13 off, with no error; the same convolution of the
dequantized floats, and the dequantization alone, are exact).  This pass puts an
`optimization_barrier` between each such operand and its consumer, so the dequantization
runs first, as its own elementwise dispatch.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import barrier_operands, rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_CONTRACTIONS = ("stablehlo.convolution", "stablehlo.dot_general", "stablehlo.dot")
# Ops a dequantization is made of between the narrow integers and the contraction (slices:
# `shlo-split-grouped-convolutions` runs first and slices each group's operands).
_ELEMENTWISE = (
    "stablehlo.add",
    "stablehlo.subtract",
    "stablehlo.multiply",
    "stablehlo.divide",
    "stablehlo.broadcast_in_dim",
    "stablehlo.reshape",
    "stablehlo.transpose",
    "stablehlo.slice",
    "stablehlo.convert",
)
_NARROW = ("i8", "ui8", "i16", "ui16")


def _dequantized(value: Any, depth: int = 8) -> bool:
    """Whether `value` is computed, through elementwise ops, from a narrow integer tensor."""
    producer = value.owner
    if depth == 0 or not isinstance(producer, ir.OpView) or producer.name not in _ELEMENTWISE:
        return False
    for operand in producer.operands:
        kind = operand.type
        if isinstance(kind, ir.ShapedType) and str(kind.element_type) in _NARROW:
            return True
        if _dequantized(operand, depth - 1):
            return True
    return False


@register_pass("shlo-barrier-dequantized-operands")
def barrier_dequantized_operands(module: Any, options: None) -> None:
    """Compute each dequantized convolution or matmul operand before its consumer."""
    for name in _CONTRACTIONS:
        rewrite_each(module, name, lambda op: barrier_operands(op, _dequantized))
