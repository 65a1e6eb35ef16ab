"""`shlo-empty-contractions`: a matmul or convolution that sums no products is zeros.

A contraction over a dimension of size 0 (`torch.mm` of a 5x0 and a 0x10 matrix) is all zeros.
IREE 3.13 compiles it to a matmul that reads its uninitialized result ("reads uninitialized
values from an operand produced by a tensor.empty op"), which its Vulkan target then fails
on.  This pass replaces each such op of static result shape by a zero constant.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import rewrite_each
from shlo.ir.elementwise import zeros
from shlo.ir.measures import contraction_depth
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_CONTRACTIONS = ("stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution")


def _zeros(op: Any) -> None:
    result = ir.RankedTensorType(op.results[0].type)
    operands_static = all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands[:2])
    if not (result.has_static_shape and operands_static) or contraction_depth(op) != 0:
        return
    op.results[0].replace_all_uses_with(zeros(result))
    op.erase()


@register_pass("shlo-empty-contractions")
def empty_contractions(module: Any, options: None) -> None:
    """Replace matmuls and convolutions that sum no products by zeros."""
    for name in _CONTRACTIONS:
        rewrite_each(module, name, _zeros)
