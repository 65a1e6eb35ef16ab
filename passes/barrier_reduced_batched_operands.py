"""`shlo-barrier-reduced-batched-operands`: an operand of a batched matmul that a reduction
computes is written out before the matmul packs it.

IREE 3.13's data tiling on llvm-cpu (`--iree-opt-data-tiling`, the dispatch-creation path)
packs a matmul's operand inside the dispatch that computes it.  Where that dispatch holds a
reduction over the operand's rows (rows divided by their sum or maximum, centred on their
mean, a softmax), IREE computes it over batch and rows collapsed into one dimension and then
packs it per batch, and for a batch of two or more whose rows do not fill the packing tile the
packed operand came out wrong, with no error (`bmm(x / x.sum(-1, keepdim=True), v)` off by
up to 1.7).  This pass puts an `optimization_barrier` between each such operand and its
batched `dot_general`, so the reduction's dispatch writes it as it is and the matmul's side
packs it.  (The other path, `--iree-global-opt-data-tiling`, gets these right and a vector
taken as a column of a matrix wrong.)
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import barrier_operands, rewrite_each
from shlo.ir.stablehlo import DotDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass

# Ops that start dispatches of their own: a reduction behind one is not in the operand's.
_ROOTS = ("stablehlo.dot_general", "stablehlo.convolution", "stablehlo.optimization_barrier")
_DEPTH = 12


def _reduced(value: Any, depth: int = _DEPTH) -> bool:
    """Whether `value` is computed, through ops that fuse with it, by a reduction."""
    producer = value.owner
    if depth == 0 or not isinstance(producer, ir.OpView) or producer.name in _ROOTS:
        return False
    if producer.name == "stablehlo.reduce":
        return True
    return any(_reduced(operand, depth - 1) for operand in producer.operands)


def _barrier(contraction: Any) -> None:
    numbers = DotDimensionNumbers(contraction.attributes["dot_dimension_numbers"])
    if not len(numbers.lhs_batching_dimensions):
        return
    barrier_operands(contraction, _reduced)


@register_pass("shlo-barrier-reduced-batched-operands")
def barrier_reduced_batched_operands(module: Any, options: None) -> None:
    """Write each batched matmul operand that a reduction computes before the matmul."""
    rewrite_each(module, "stablehlo.dot_general", _barrier)
