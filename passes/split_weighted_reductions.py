"""`shlo-split-weighted-reductions`: a sum of a weighted tensor over several dimensions, in two.

IREE 3.13 takes a `stablehlo.reduce` that adds up a product with a broadcast tensor (a
weighted loss summed over everything: `(x * w[None, :]).sum()`) for a contraction, and fails
to compile it where the broadcast tensor varies along some of the reduced dimensions but not
all ("'vector.contract' op invalid accumulator/result vector shape").  This pass sums over the
dimensions the broadcast tensor does not vary along first, then over the rest: two sums IREE
compiles, of the same elements (in another order, as any reduction may add them).
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import combiner, producer, reduced, rewrite_each
from shlo.ir.elementwise import zero_attribute, zeros
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _varying(value: Any) -> set[int] | None:
    """The dimensions a `broadcast_in_dim` result varies along, or None for another value."""
    source = producer(value)
    if source is None or source.name != "stablehlo.broadcast_in_dim":
        return None
    shape = ir.RankedTensorType(source.operands[0].type).shape
    mapped = ir.DenseI64ArrayAttr(source.attributes["broadcast_dimensions"])
    return {d for i, d in enumerate(mapped) if shape[i] != 1}


def _split(reduce: Any) -> None:
    if len(reduce.operands) != 2 or combiner(reduce) != "stablehlo.add":
        return
    x, init = reduce.operands
    kind = ir.RankedTensorType(x.type)
    if not kind.has_static_shape or zero_attribute(kind.element_type) is None:
        return
    dims = sorted(ir.DenseI64ArrayAttr(reduce.attributes["dimensions"]))
    product = producer(x)
    if len(dims) < 2 or product is None or product.name != "stablehlo.multiply":
        return
    found = [v for v in map(_varying, product.operands) if v is not None]
    if not found:
        return
    varying = set().union(*found)
    first = [d for d in dims if d not in varying]
    later = [d for d in dims if d in varying]
    if not first or not later:
        return
    partial = reduced(x, zeros(ir.RankedTensorType(init.type)), "stablehlo.add", first)
    renumbered = [d - sum(f < d for f in first) for d in later]
    reduce.results[0].replace_all_uses_with(reduced(partial, init, "stablehlo.add", renumbered))
    reduce.erase()


@register_pass("shlo-split-weighted-reductions")
def split_weighted_reductions(module: Any, options: None) -> None:
    """Sum a weighted tensor over the dimensions its weight is constant along first."""
    rewrite_each(module, "stablehlo.reduce", _split)
