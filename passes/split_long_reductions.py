"""`shlo-split-long-reductions`: reductions and matmuls that sum more than 65,535 elements into
one result are split in two.

IREE 3.13's Vulkan target combines at most 65,535 elements into each result: `torch.ones(2,
70000).sum(1)` gave 65,535 on lavapipe, and so did a matmul over 70,000, with no error, for
f32 and f64 and any set of reduced dimensions.  For a `reduce`, this pass moves the reduced
dimensions last, flattens them, pads them with the init value to a multiple of `CHUNK` and
reduces each chunk first, then the chunks' results with the original op, until no reduction
is longer than `LIMIT`.  Its result goes through an `optimization_barrier`: IREE otherwise
recomputes it inside the long elementwise op that uses it (softmax's `x - max`), whose Vulkan
dispatch then also stopped after 65,535 elements of a row.  It handles reductions of one
tensor whose body is one elementwise op (sum, product, max, min, and, or, xor) on static
shapes, which is what torch-mlir emits for sums, means, norms and max/min.  A `dot_general`
gets its contracted elements, padded with zeros, as chunks in a new batch dimension and a sum
over them.  `shlo.ir.iree_gaps.long_rows` names what remains (scans, argmax, convolutions).
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import combiner, create, reduced, rewrite_each, shaped_like, transpose
from shlo.ir.elementwise import zeros
from shlo.ir.iree_gaps import LIMIT
from shlo.ir.measures import contraction_depth
from shlo.ir.stablehlo import DotDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass

CHUNK = 4096
_BODIES = (
    "stablehlo.add",
    "stablehlo.multiply",
    "stablehlo.maximum",
    "stablehlo.minimum",
    "stablehlo.and",
    "stablehlo.or",
    "stablehlo.xor",
)


def _flattened(x: Any, lead: list[int], reduced: list[int]) -> Any:
    """`x` as [lead dims..., other dims..., the elements of the `reduced` dims]."""
    shape = ir.RankedTensorType(x.type).shape
    other = [d for d in range(len(shape)) if d not in lead and d not in reduced]
    x = transpose(x, [*lead, *other, *reduced])
    kept = [shape[d] for d in (*lead, *other)]
    length = math.prod(shape[d] for d in reduced)
    return create("stablehlo.reshape", shaped_like(x, [*kept, length]), [x])


def _chunked(x: Any, lead: int, pad: Any) -> Any:
    """`x` of shape [lead dims..., rest..., length] as [lead dims..., chunks, rest..., CHUNK],
    its last dimension padded with `pad` to a multiple of `CHUNK`."""
    shape = list(ir.RankedTensorType(x.type).shape)
    length = shape[-1]
    chunks = -(-length // CHUNK)
    if chunks * CHUNK != length:
        zeros = ir.DenseI64ArrayAttr.get([0] * len(shape))
        high = ir.DenseI64ArrayAttr.get([0] * (len(shape) - 1) + [chunks * CHUNK - length])
        padding = {"edge_padding_low": zeros, "edge_padding_high": high, "interior_padding": zeros}
        x = create(
            "stablehlo.pad", shaped_like(x, [*shape[:-1], chunks * CHUNK]), [x, pad], padding
        )
    x = create("stablehlo.reshape", shaped_like(x, [*shape[:-1], chunks, CHUNK]), [x])
    rank = len(shape) + 1
    return transpose(x, [*range(lead), rank - 2, *range(lead, rank - 2), rank - 1])


def _reduce_last(x: Any, init: Any, body: str) -> Any:
    """`x` reduced over its last dimension by a new reduce whose body is `body`."""
    return reduced(x, init, body, [len(ir.RankedTensorType(x.type).shape) - 1])


def _split(reduce: Any) -> None:
    """A reduce of more than `LIMIT` elements per result: chunks of `CHUNK` reduced first."""
    if len(reduce.operands) != 2 or (body := combiner(reduce)) not in _BODIES:
        return
    x, init = reduce.operands
    if not ir.RankedTensorType(x.type).has_static_shape:
        return
    shape = ir.RankedTensorType(x.type).shape
    dims = sorted(ir.DenseI64ArrayAttr(reduce.attributes["dimensions"]))
    if math.prod(shape[d] for d in dims) <= LIMIT:
        return
    x = _flattened(x, [], dims)
    outer = len(shape) - len(dims)
    while ir.RankedTensorType(x.type).shape[-1] > LIMIT:
        x = _reduce_last(_chunked(x, outer, init), init, body)
    reduce.operands[0] = x
    reduce.attributes["dimensions"] = ir.DenseI64ArrayAttr.get([outer])
    result = reduce.results[0]
    with ir.InsertionPoint.after(reduce):
        barrier = create("stablehlo.optimization_barrier", result.type, [result])
    result.replace_all_uses_except(barrier, barrier.owner.operation)


def _split_dot(dot: Any) -> None:
    """A dot_general that sums more than `LIMIT` products per result: its chunks of `CHUNK`
    become a batch dimension, summed over after."""
    lhs, rhs = dot.operands
    if not all(ir.RankedTensorType(v.type).has_static_shape for v in (lhs, rhs)):
        return
    if contraction_depth(dot) <= LIMIT:
        return
    numbers = DotDimensionNumbers(dot.attributes["dot_dimension_numbers"])
    result = ir.RankedTensorType(dot.results[0].type)
    batch = len(numbers.lhs_batching_dimensions)
    operands = [
        _chunked(_flattened(value, list(lead), list(reduced)), batch, zeros(shaped_like(value, [])))
        for value, lead, reduced in (
            (lhs, numbers.lhs_batching_dimensions, numbers.lhs_contracting_dimensions),
            (rhs, numbers.rhs_batching_dimensions, numbers.rhs_contracting_dimensions),
        )
    ]
    ranks = [len(ir.RankedTensorType(v.type).shape) for v in operands]
    chunks = ir.RankedTensorType(operands[0].type).shape[batch]
    shape = [*result.shape[:batch], chunks, *result.shape[batch:]]
    numbers = DotDimensionNumbers.get(
        lhs_batching_dimensions=list(range(batch + 1)),
        rhs_batching_dimensions=list(range(batch + 1)),
        lhs_contracting_dimensions=[ranks[0] - 1],
        rhs_contracting_dimensions=[ranks[1] - 1],
    )
    partial = create(
        "stablehlo.dot_general",
        ir.RankedTensorType.get(shape, result.element_type),
        operands,
        {"dot_dimension_numbers": numbers},
    )
    partial = transpose(partial, [*range(batch), *range(batch + 1, len(shape)), batch])
    dot.results[0].replace_all_uses_with(
        _reduce_last(partial, zeros(shaped_like(dot.results[0], [])), "stablehlo.add")
    )
    dot.erase()


@register_pass("shlo-split-long-reductions")
def split_long_reductions(module: Any, options: None) -> None:
    """Reduce long rows in chunks first, so no reduction is longer than `LIMIT`."""
    rewrite_each(module, "stablehlo.reduce", _split)
    rewrite_each(module, "stablehlo.dot_general", _split_dot)
