"""`shlo-jax-dynamic-calls`: the custom calls of a shape-polymorphic JAX export, made static.

With shape polymorphism JAX lowers `lax.top_k` to `custom_call @stablehlo.dynamic_top_k(operand,
k)` and random bits to `custom_call @stablehlo.dynamic_rng_bit_generator(state, shape)`, which
only XLA takes (`stablehlo.dynamic_approx_top_k` is `shlo-jax-approx-top-k`'s).  Once the
arguments have static types and shapes are refined, k is a constant: each dynamic top-k becomes
`chlo.top_k` with that k, its results typed statically (`shlo-top-k-as-sort` then writes it as
the stable sort upstream lowers it to).  A k still unknown fails the pass; so does the dynamic
random bit generator, whose DEFAULT algorithm's bits are XLA's own choice, and whose other
algorithms no export of JAX's uses.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import functions, ops_in, returned_values, set_results
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass

TOP_K = "stablehlo.dynamic_top_k"
RNG = "stablehlo.dynamic_rng_bit_generator"


def _target(op: Any) -> str:
    return str(ir.StringAttr(op.attributes["call_target_name"]).value)


def _constant_k(op: Any) -> int:
    owner = op.operands[1].owner
    producer = None if isinstance(owner, ir.Block) else owner.operation
    constant = producer is not None and producer.name == "stablehlo.constant"
    value = constant_value(producer) if constant else None
    if value is None:
        raise PassFailure(f"{TOP_K}: k is known only at run time; give @main static types", op)
    return int(ir.DenseIntElementsAttr(value)[0])


def _top_k(op: Any) -> None:
    """`op` as `chlo.top_k`, its results typed by the operand's static shape and k."""
    operand = ir.RankedTensorType(op.operands[0].type)
    if not operand.has_static_shape:
        raise PassFailure(f"{TOP_K}: the operand's shape is known only at run time", op)
    k = _constant_k(op)
    shape = [*operand.shape[:-1], k]
    results = [
        ir.RankedTensorType.get(shape, ir.RankedTensorType(r.type).element_type) for r in op.results
    ]
    with ir.InsertionPoint(op), op.location:
        top_k = ir.Operation.create(
            "chlo.top_k",
            results=results,
            operands=[op.operands[0]],
            attributes={"k": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k)},
        )
    for old, new in zip(op.results, top_k.results, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


@register_pass("shlo-jax-dynamic-calls")
def jax_dynamic_calls(module: Any, options: None) -> None:
    """Write each `stablehlo.dynamic_top_k` as a static `chlo.top_k`; refuse the dynamic random
    bit generator."""
    with module.context, ir.Location.unknown():
        calls = ops_in(module, "stablehlo.custom_call")
        for op in calls:
            if _target(op) == RNG:
                raise PassFailure(
                    f"{RNG}: its bits are XLA's own (the DEFAULT algorithm is "
                    "implementation-defined), which no other consumer reproduces",
                    op,
                )
        rewritten = [op for op in calls if _target(op) == TOP_K]
        for op in rewritten:
            _top_k(op)
        if rewritten:  # the results that now have static types, in each function's signature
            for function in functions(module).values():
                if function.regions[0].blocks:
                    set_results(function, returned_values(function))
