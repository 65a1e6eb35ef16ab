"""`shlo-private-sort-operands`: each sort reads operands that no other op shares.

IREE 3.13 sorts in place, inside the buffers of a sort's operands, and when an operand is
also used elsewhere it does not always copy first: two `torch.sort` calls share one
`stablehlo.iota` of indices, and both sorts' indices came back wrong (as did that iota where
it was also returned).  This pass gives every sort operand that has another use a copy of
its own through a `stablehlo.optimization_barrier`, which IREE neither folds nor merges.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _privatize(sort: Any) -> None:
    for index, operand in enumerate(list(sort.operands)):
        if len(list(operand.uses)) < 2:
            continue
        with ir.InsertionPoint(sort), sort.location:
            barrier = ir.Operation.create(
                "stablehlo.optimization_barrier", results=[operand.type], operands=[operand]
            )
        sort.operands[index] = barrier.results[0]


@register_pass("shlo-private-sort-operands")
def private_sort_operands(module: Any, options: None) -> None:
    """Give each sort operand that another op also uses a copy through a barrier."""
    with module.context:
        for sort in ops_in(module, "stablehlo.sort"):
            _privatize(sort)
