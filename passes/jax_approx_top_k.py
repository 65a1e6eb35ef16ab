"""`shlo-jax-approx-top-k`: JAX's `ApproxTopK` custom call as the exact sort XLA:CPU runs.

`lax.approx_max_k` / `approx_min_k` export as `custom_call @ApproxTopK` with the comparator
as a called function and `top_k` / `reduction_dim` in `mhlo.backend_config`.  On the CPU,
XLA computes it exactly (the call is marked `is_fallback`): a sort along `reduction_dim`
with that comparator, then the first `top_k`.  IREE takes the call as a maximum top-k
whatever the comparator says, so `approx_min_k` returned the largest values, and equal
values came back in another order, with no error.  This pass writes each call as that
stable sort of (operand, iota) with the comparator's body, sliced to the result's size; so
also `stablehlo.dynamic_approx_top_k` (shape polymorphism), once refined shapes make k known.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import functions, leading, ops_in, stable_sort_of
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass

# JAX's call, and the one it writes under shape polymorphism (k an operand, refined to a constant
# before this pass: the results' static types say k).
TARGETS = ("ApproxTopK", "stablehlo.dynamic_approx_top_k")


def _reduction_dim(op: Any) -> int:
    config = ir.DictAttr(op.attributes["mhlo.backend_config"])
    return int(ir.IntegerAttr(config["reduction_dim"]).value)


def _comparator_into(block: Any, comparator: Any) -> None:
    """The body of `comparator` (a function of four scalars) copied into `block`."""
    body = comparator.regions[0].blocks[0]
    mapping = dict(zip(body.arguments, block.arguments, strict=True))
    *ops, returned = body.operations
    with ir.InsertionPoint(block):
        for op in ops:
            copy = op.clone()
            for i, operand in enumerate(copy.operands):
                copy.operands[i] = mapping.get(operand, operand)
            mapping.update(zip(op.results, copy.results, strict=True))
        ir.Operation.create("stablehlo.return", operands=[mapping[returned.operands[0]]])


def _rewrite(op: Any, comparator: Any) -> None:
    values, positions = op.operands[0], op.operands[1]
    dimension = _reduction_dim(op)
    with ir.InsertionPoint(op), op.location:
        sort, block = stable_sort_of([values, positions], dimension)
        _comparator_into(block, comparator)
        results = [
            leading(sorted_, list(ir.RankedTensorType(result.type).shape))
            for sorted_, result in zip(sort.results, op.results, strict=True)
        ]
    for result, value in zip(op.results, results, strict=True):
        result.replace_all_uses_with(value)
    op.erase()


@register_pass("shlo-jax-approx-top-k")
def jax_approx_top_k(module: Any, options: None) -> None:
    """Write every `ApproxTopK` custom call as the exact stable sort and slices."""
    with module.context:
        named = functions(module)
        for op in ops_in(module, "stablehlo.custom_call"):
            if ir.StringAttr(op.attributes["call_target_name"]).value not in TARGETS:
                continue
            if not all(ir.RankedTensorType(r.type).has_static_shape for r in op.results):
                raise PassFailure("an approximate top-k whose k is known only at run time", op)
            callee = ir.FlatSymbolRefAttr(ir.ArrayAttr(op.attributes["called_computations"])[0])
            _rewrite(op, named[callee.value])
