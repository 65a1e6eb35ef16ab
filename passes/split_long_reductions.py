"""`shlo-split-long-reductions`: a reduction of more than 65,535 elements per result becomes two.

IREE 3.13's Vulkan target reduces at most 65,535 elements into each result: `torch.ones(2,
70000).sum(1)` gave 65,535 on lavapipe, with no error, for f32 and f64, and for any set of
reduced dimensions.  This pass moves the reduced dimensions last, flattens them, pads them with
the init value to a multiple of `CHUNK` and reduces each chunk first, then the chunks' results
with the original op, until no reduction is longer than `LIMIT`.  The last reduction's result
goes through an `optimization_barrier`: IREE otherwise recomputes it inside the long
elementwise op that uses it (softmax's `x - max`), whose Vulkan dispatch then also stopped
after 65,535 elements of a row.  It handles reductions of one
tensor whose body is one elementwise op (sum, product, max, min, and, or, xor) on static
shapes, which is what torch-mlir emits for sums, means, norms and max/min.
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import create, ops_in, rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

LIMIT = 65535
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


def _body_op(reduce: Any) -> str | None:
    """The name of the one elementwise op `reduce`'s body applies, if that is all it does."""
    ops = list(reduce.regions[0].blocks[0].operations)
    if len(ops) != 2 or ops[0].name not in _BODIES:
        return None
    return ops[0].name


def _tensor(shape: list[int], like: Any) -> Any:
    return ir.RankedTensorType.get(shape, ir.RankedTensorType(like.type).element_type)


def _reduce_last(x: Any, init: Any, body: str) -> Any:
    """`x` reduced over its last dimension by a new reduce whose body is `body`."""
    shape = ir.RankedTensorType(x.type).shape
    reduce = ir.Operation.create(
        "stablehlo.reduce",
        results=[_tensor(shape[:-1], x)],
        operands=[x, init],
        attributes={"dimensions": ir.DenseI64ArrayAttr.get([len(shape) - 1])},
        regions=1,
    )
    block = reduce.regions[0].blocks.append(init.type, init.type)
    with ir.InsertionPoint(block):
        combined = create(body, init.type, list(block.arguments))
        ir.Operation.create("stablehlo.return", results=[], operands=[combined])
    return reduce.results[0]


def _split(reduce: Any) -> None:
    if len(reduce.operands) != 2 or (body := _body_op(reduce)) is None:
        return
    x, init = reduce.operands
    kind = ir.RankedTensorType(x.type)
    if not kind.has_static_shape:
        return
    dims = sorted(ir.DenseI64ArrayAttr(reduce.attributes["dimensions"]))
    shape = list(kind.shape)
    length = math.prod(shape[d] for d in dims)
    if length <= LIMIT:
        return
    kept = [d for d in range(len(shape)) if d not in dims]
    order = kept + dims
    if order != sorted(order):
        transposed = _tensor([shape[d] for d in order], x)
        x = create(
            "stablehlo.transpose", transposed, [x], {"permutation": ir.DenseI64ArrayAttr.get(order)}
        )
    outer = [shape[d] for d in kept]
    x = create("stablehlo.reshape", _tensor([*outer, length], x), [x])
    while length > LIMIT:
        chunks = -(-length // CHUNK)
        if chunks * CHUNK != length:
            zeros = ir.DenseI64ArrayAttr.get([0] * (len(outer) + 1))
            high = ir.DenseI64ArrayAttr.get([0] * len(outer) + [chunks * CHUNK - length])
            padding = {
                "edge_padding_low": zeros,
                "edge_padding_high": high,
                "interior_padding": zeros,
            }
            x = create("stablehlo.pad", _tensor([*outer, chunks * CHUNK], x), [x, init], padding)
        x = create("stablehlo.reshape", _tensor([*outer, chunks, CHUNK], x), [x])
        x = _reduce_last(x, init, body)
        length = chunks
    reduce.operands[0] = x
    reduce.attributes["dimensions"] = ir.DenseI64ArrayAttr.get([len(outer)])
    result = reduce.results[0]
    with ir.InsertionPoint.after(reduce):
        barrier = create("stablehlo.optimization_barrier", result.type, [result])
    result.replace_all_uses_except(barrier, barrier.owner.operation)


def long_rows(module: Any) -> list[tuple[Any, int]]:
    """The reductions and windowed reductions (cumulative sums) of `module` that still
    combine more than `LIMIT` elements into one result, with that count: those this pass
    does not split, which IREE's Vulkan target computes wrong."""
    found = []
    for op in ops_in(module):
        if op.name == "stablehlo.reduce":
            shape = ir.RankedTensorType(op.operands[0].type).shape
            dims = ir.DenseI64ArrayAttr(op.attributes["dimensions"])
            length = math.prod(shape[d] for d in dims)
        elif op.name == "stablehlo.reduce_window":
            length = math.prod(ir.DenseI64ArrayAttr(op.attributes["window_dimensions"]))
        else:
            continue
        if length > LIMIT:
            found.append((op, length))
    return found


@register_pass("shlo-split-long-reductions")
def split_long_reductions(module: Any, options: None) -> None:
    """Reduce long rows in chunks first, so no reduction is longer than `LIMIT`."""
    rewrite_each(module, "stablehlo.reduce", _split)
