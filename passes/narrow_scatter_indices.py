"""`shlo-narrow-scatter-indices`: scatter indices as i32, those out of bounds kept out of bounds.

IREE 3.13 fails to compile two windowed scatters that read one i64 index tensor ("failed to
legalize unresolved source materialization from 'tensor<8x1xi64>' to 'tensor<8x1xi32>'"): two
`index_add`s by one index (a graph network's sums and counts by destination), an embedding
bag's sum and mean.  Given i32 indices, each compiles.  Each index is clamped to
[-1, the largest operand dimension it addresses] before the conversion: every start a window
can have is unchanged and one out of bounds stays out of bounds (StableHLO skips its update),
where a plain conversion would wrap 2**32 into bounds.  Only scatters whose operand dimensions
are static and below 2**31 - 1 are rewritten.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, ops_in, scatter_inputs
from shlo.ir.stablehlo import ScatterDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass

_I32_MAX = 2**31 - 1


def _bound(scatter: Any) -> int | None:
    """The largest operand dimension the scatter's indices address, if it can be narrowed."""
    indices = ir.RankedTensorType(scatter.operands[scatter_inputs(scatter)].type)
    operand = ir.RankedTensorType(scatter.operands[0].type)
    if str(indices.element_type) != "i64" or not operand.has_static_shape:
        return None
    numbers = ScatterDimensionNumbers(scatter.attributes["scatter_dimension_numbers"])
    addressed = [operand.shape[d] for d in numbers.scattered_dims_to_operand_dims]
    bound = max(addressed, default=0)
    return bound if bound < _I32_MAX else None


def _narrow(scatter: Any) -> None:
    bound = _bound(scatter)
    if bound is None:
        return
    position = scatter_inputs(scatter)
    indices = scatter.operands[position]
    i64 = ir.RankedTensorType(indices.type).element_type
    scalar = ir.RankedTensorType.get([], i64)
    with ir.InsertionPoint(scatter), scatter.location:
        low, high = (
            create(
                "stablehlo.constant",
                scalar,
                [],
                {"value": ir.DenseElementsAttr.get_splat(scalar, ir.IntegerAttr.get(i64, value))},
            )
            for value in (-1, bound)
        )
        clamped = create("stablehlo.clamp", indices.type, [low, indices, high])
        narrow = ir.RankedTensorType.get(indices.type.shape, ir.IntegerType.get_signless(32))
        scatter.operands[position] = create("stablehlo.convert", narrow, [clamped])


@register_pass("shlo-narrow-scatter-indices")
def narrow_scatter_indices(module: Any, options: None) -> None:
    """Clamp each scatter's i64 indices to where they stay in or out of bounds, as i32."""
    with module.context, ir.Location.unknown():
        for scatter in ops_in(module, "stablehlo.scatter"):
            _narrow(scatter)
