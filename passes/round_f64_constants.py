"""`shlo-round-f64-constants`: f64 constants rounded to the nearest f32, for IREE's demotion.

When IREE 3.13 demotes f64 to f32 (`--iree-input-demote-f64-to-f32`, its default), it
truncates each f64 constant toward zero instead of rounding it: torch-mlir's `x * (2/3)` of an
f32 tensor multiplied by 0.666666627 where eager multiplies by 0.666666687, and an
interpolation's source position 2 came out 1.9999999, picking the wrong neighbour.  This pass
writes each f64 constant as the nearest f32 constant (overflowing to an infinity, as a
rounding does) converted to f64, which the demotion turns into the f32 constant itself.  It
belongs only where f64 is demoted; where f64 is kept, the constants stay as they are.

A convert of the constant to another float type converts the f32 constant directly (the same
value: f32 widens to f64 exactly), since IREE cannot compile an f32 to f64 to bf16 chain that
its constant evaluation hoists.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, ops_in
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _rounded(value: Any, shaped: Any) -> Any:
    """`value` (f64 dense elements) as f32 dense elements of `shaped`'s shape."""
    import numpy as np  # numpy stays out of shlo-opt's start-up

    narrow = ir.RankedTensorType.get(shaped.shape, ir.F32Type.get())
    if value.is_splat:
        nearest = float(np.float64(value.get_splat_value().value).astype(np.float32))
        return ir.DenseElementsAttr.get_splat(narrow, ir.FloatAttr.get(ir.F32Type.get(), nearest))
    with np.errstate(over="ignore"):
        return ir.DenseElementsAttr.get(np.asarray(value).astype(np.float32), type=narrow)


@register_pass("shlo-round-f64-constants")
def round_f64_constants(module: Any, options: None) -> None:
    """Write each f64 `stablehlo.constant` as the nearest f32 one converted to f64."""
    from shlo.ir.resources import inline_resources

    with module.context:
        inline_resources(module, lambda element: element == "f64")
        for op in ops_in(module, "stablehlo.constant"):
            shaped = ir.RankedTensorType(op.results[0].type)
            value = constant_value(op)
            if str(shaped.element_type) != "f64" or not isinstance(value, ir.DenseElementsAttr):
                continue
            with ir.InsertionPoint(op), op.location:
                narrow = _rounded(value, shaped)
                constant = create("stablehlo.constant", narrow.type, [], {"value": narrow})
                _narrow_converts(op.results[0], constant)
                if list(op.results[0].uses):
                    widened = create("stablehlo.convert", shaped, [constant])
                    op.results[0].replace_all_uses_with(widened)
            op.erase()


def _narrow_converts(value: Any, constant: Any) -> None:
    """Each user of `value` that converts it to another float type takes `constant` instead."""
    for use in list(value.uses):
        convert = use.owner.operation
        if convert.name != "stablehlo.convert":
            continue
        result = ir.RankedTensorType(convert.results[0].type)
        if not isinstance(result.element_type, ir.FloatType) or str(result.element_type) == "f64":
            continue
        narrowed = constant
        if result != constant.type:
            narrowed = create("stablehlo.convert", result, [constant])
        convert.results[0].replace_all_uses_with(narrowed)
        convert.erase()
