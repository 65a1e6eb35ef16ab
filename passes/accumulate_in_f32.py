"""`shlo-accumulate-in-f32`: f16 and bf16 matmuls and convolutions summed in f32.

PyTorch's CPU kernels multiply f16/bf16 operands and add the products in f32, rounding once at
the end; IREE sums in the result's type when that is f16, so a 16-deep f16 matmul or a 3x3x8
convolution came out further from eager than its tolerance.  This pass gives each `dot`,
`dot_general` and `convolution` with a 16-bit float result an f32 result (StableHLO takes 16-bit
operands with a wider result) and converts that back: one rounding, as eager does.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_ACCUMULATING = ("stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution")


def _in_f32(op: Any) -> None:
    result = ir.RankedTensorType(op.result.type)
    if str(result.element_type) not in ("f16", "bf16"):
        return
    wide = ir.Operation.create(
        op.name,
        results=[ir.RankedTensorType.get(result.shape, ir.F32Type.get())],
        operands=list(op.operands),
        attributes={name: op.attributes[name] for name in op.attributes},
    )
    narrow = ir.Operation.create("stablehlo.convert", results=[result], operands=[wide.result])
    op.result.replace_all_uses_with(narrow.result)
    op.erase()


@register_pass("shlo-accumulate-in-f32")
def accumulate_in_f32(module: Any, options: None) -> None:
    """Sum f16/bf16 matmuls and convolutions in f32, rounding the result once."""
    for name in _ACCUMULATING:
        rewrite_each(module, name, _in_f32)
