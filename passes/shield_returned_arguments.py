"""`shlo-shield-returned-arguments`: an argument a function returns is kept from in-place updates.

IREE 3.13 updates a tensor in place (a `scatter` or `dynamic_update_slice` of an argument)
inside the argument's own buffer when nothing else reads the argument as a tensor, and a
function that also returns the argument (as it is, or reshaped, which only relabels the
buffer) hands back that same buffer: `return scatter(x, ...), x` gave the scattered values
twice.  This pass routes each such return of an argument that has other uses through a
`stablehlo.optimization_barrier`, which counts as a read, so IREE copies before updating.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import functions
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_RELABELS = ("stablehlo.reshape",)  # ops IREE turns into a new view of the same buffer


def _reaches_return(op: Any) -> bool:
    """Whether `op` is a return, or a relabelling whose result reaches one through more."""
    if op.name == "func.return":
        return True
    return op.name in _RELABELS and any(_reaches_return(use.owner) for use in op.results[0].uses)


def _shield(function: Any) -> None:
    entry = function.regions[0].blocks[0]
    for argument in entry.arguments:
        uses = [(use.owner, use.operand_number) for use in argument.uses]
        returned = [(owner, index) for owner, index in uses if _reaches_return(owner)]
        if not returned or len(returned) == len(uses):
            continue  # not returned, or nothing else could update it
        with ir.InsertionPoint.at_block_begin(entry), ir.Location.unknown():
            barrier = ir.Operation.create(
                "stablehlo.optimization_barrier", results=[argument.type], operands=[argument]
            )
        for owner, index in returned:
            owner.operands[index] = barrier.results[0]


@register_pass("shlo-shield-returned-arguments")
def shield_returned_arguments(module: Any, options: None) -> None:
    """Route returns of arguments that have other uses through an optimization barrier."""
    with module.context:
        for function in functions(module).values():
            if function.regions[0].blocks:
                _shield(function)
