"""`shlo-own-f64-converts`: a reduction of values converted to f64 gets a convert of its own.

torch-mlir computes `var`, `std` and norms of f32 or f16 tensors in f64: one `convert` to f64
feeds both the mean's reduction and the subtraction after it.  IREE 3.13 then keeps that
shared convert beside the reduction in one dispatch instead of fusing it in, and its Vulkan
target stages the whole converted tensor in workgroup memory ("uses 805306496 bytes of
shared memory; exceeded the limit of 16384 bytes").  This pass gives each such `reduce` its
own convert, of its input behind an `optimization_barrier` (so it is not merged back with
the shared one), which IREE fuses into the reduction.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _shared_f64_convert(value: Any) -> bool:
    producer = value.owner
    return (
        isinstance(producer, ir.OpView)
        and producer.name == "stablehlo.convert"
        and str(ir.ShapedType(value.type).element_type) == "f64"
        and len(list(value.uses)) > 1
    )


def _own_converts(reduce: Any) -> None:
    inputs = len(reduce.operands) // 2  # operands: the inputs, then their init values
    for index in range(inputs):
        value = reduce.operands[index]
        if not _shared_f64_convert(value):
            continue
        source = value.owner.operands[0]
        barrier = create("stablehlo.optimization_barrier", source.type, [source])
        reduce.operands[index] = create("stablehlo.convert", value.type, [barrier])


@register_pass("shlo-own-f64-converts")
def own_f64_converts(module: Any, options: None) -> None:
    """Give each reduction of a shared convert to f64 a convert of its own."""
    rewrite_each(module, "stablehlo.reduce", _own_converts)
