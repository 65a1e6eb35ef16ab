"""`shlo-accumulate-in-f32`: f16 and bf16 matmuls, convolutions and sums accumulated in f32.

PyTorch's CPU kernels multiply f16/bf16 operands and add the products in f32, and add the
elements of an f16/bf16 sum in f32, rounding once at the end.  IREE sums in the result's type
when that is f16, and a bf16 sum in f32 rounded to bf16 after every vector of elements, so a
16-deep f16 matmul, a 3x3x8 convolution or a long sum came out further from eager than its
tolerance.  This pass gives each `dot`, `dot_general` and `convolution` with a 16-bit float
result an f32 result (StableHLO takes 16-bit operands with a wider result), computes each
one-input 16-bit `reduce` whose body is `add` in f32, and converts the result back: one
rounding, as eager does.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import combiner, create, in_program, ops_in, producer, rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_ACCUMULATING = ("stablehlo.dot", "stablehlo.dot_general", "stablehlo.convolution")
_NARROW = ("f16", "bf16")


def _wide(kind: Any) -> Any:
    return ir.RankedTensorType.get(kind.shape, ir.F32Type.get())


def _in_f32(op: Any) -> None:
    result = ir.RankedTensorType(op.result.type)
    if str(result.element_type) not in _NARROW:
        return
    wide = ir.Operation.create(
        op.name,
        results=[_wide(result)],
        operands=list(op.operands),
        attributes={name: op.attributes[name] for name in op.attributes},
    )
    narrow = ir.Operation.create("stablehlo.convert", results=[result], operands=[wide.result])
    op.result.replace_all_uses_with(narrow.result)
    op.erase()


def _sum_in_f32(reduce: Any) -> None:
    """A sum of 16-bit floats accumulated in f32 and rounded once, in place."""
    result = reduce.results[0]
    kind = result.type
    if len(reduce.operands) != 2 or str(kind.element_type) not in _NARROW:
        return
    if combiner(reduce) != "stablehlo.add":
        return
    with ir.InsertionPoint(reduce), reduce.location:
        for index, operand in enumerate(list(reduce.operands)):
            reduce.operands[index] = create("stablehlo.convert", _wide(operand.type), [operand])
        body = reduce.regions[0].blocks[0]
        for value in (*body.arguments, list(body.operations)[0].result, result):
            value.set_type(_wide(value.type))
    with ir.InsertionPoint.after(reduce), reduce.location:
        narrow = create("stablehlo.convert", kind, [result])
    result.replace_all_uses_except(narrow, producer(narrow))


@register_pass("shlo-accumulate-in-f32")
def accumulate_in_f32(module: Any, options: None) -> None:
    """Sum f16/bf16 matmuls, convolutions and reductions in f32, rounding the result once."""
    for name in _ACCUMULATING:
        rewrite_each(module, name, _in_f32)
    with module.context:
        for op in ops_in(module, "stablehlo.reduce"):
            if in_program(op):
                _sum_in_f32(op)
