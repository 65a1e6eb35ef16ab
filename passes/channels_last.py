"""`shlo-channels-last`: convolutions in channels-last layout, the transposes moved out of the way.

PyTorch models arrive in channels-first layout (NCHW).  `shlo-patchify-convolutions` computes
their convolutions as matmuls over rows of channels, so each one is framed by a transpose to
channels-last and one back; IREE then fuses the transpose back, the batch norm and the next
convolution's padding into the matmul's store, and a matmul writing that layout is one it does
not data-tile.  Here every convolution is given a channels-last output followed by one
transpose back, and each such transpose is moved below the ops that do not care about layout
(elementwise ops, whose broadcast and splat operands are re-broadcast to the new layout;
pooling windows, reductions, pads, slices and concatenations, whose attributes are permuted;
convolutions, whose dimension numbers absorb it) until it meets its inverse and both vanish,
or reaches a result.  The model then runs channels-last from its first convolution to its
results, as a vision model in eager PyTorch does with `channels_last` memory format.

Only transposes from channels-last to channels-first move (for rank 3 that is also a
transformer's swap of its last two dimensions), an op moves them only when every operand
allows it, and a module without convolutions is left as it was.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from shlo.ir.edit import create, dense_constant, ops_in, producer, shaped_like, transpose
from shlo.ir.elementwise import ELEMENTWISE
from shlo.ir.stablehlo import ConvDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass

_DIMENSION_NUMBERS = tuple(
    f"{side}_{part}"
    for side, parts in (
        ("input", ("batch_dimension", "feature_dimension", "spatial_dimensions")),
        ("kernel", ("input_feature_dimension", "output_feature_dimension", "spatial_dimensions")),
        ("output", ("batch_dimension", "feature_dimension", "spatial_dimensions")),
    )
    for part in parts
)


# The per-dimension attributes of reduce_window, pad and slice.
_PER_DIMENSION = (
    "window_dimensions",
    "window_strides",
    "base_dilations",
    "window_dilations",
    "edge_padding_low",
    "edge_padding_high",
    "interior_padding",
    "start_indices",
    "limit_indices",
    "strides",
)
_DISPOSABLE = frozenset(("stablehlo.transpose", "stablehlo.broadcast_in_dim", "stablehlo.constant"))


def channels_first(rank: int) -> list[int]:
    """The permutation a transpose from channels-last to channels-first layout has."""
    return [0, rank - 1, *range(1, rank - 1)]


def _permutation(op: Any) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def _shape(value: Any) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _inverse(permutation: list[int]) -> list[int]:
    """The permutation that undoes `permutation`."""
    return [permutation.index(d) for d in range(len(permutation))]


def _renumber(conv: Any, **changes: Any) -> None:
    """Set some of the convolution's dimension numbers, keeping the others."""
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    fields = {name: getattr(numbers, name) for name in _DIMENSION_NUMBERS}
    fields = {name: v if isinstance(v, int) else list(v) for name, v in fields.items()}
    conv.attributes["dimension_numbers"] = ConvDimensionNumbers.get(**(fields | changes))


def _layout_transpose(value: Any) -> list[int] | None:
    """The permutation of the channels-last to channels-first transpose `value` comes from."""
    op = producer(value)
    if op is None or op.name != "stablehlo.transpose":
        return None
    permutation = _permutation(op)
    return permutation if permutation == channels_first(len(permutation)) else None


def _channels_last_output(conv: Any) -> None:
    """Give `conv` a channels-last result and transpose that back to the layout it had."""
    if not isinstance(conv.result.type, ir.RankedTensorType):
        return
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    spatial = list(numbers.output_spatial_dimensions)
    rank = len(spatial) + 2
    if [numbers.output_batch_dimension, *spatial, numbers.output_feature_dimension] == list(
        range(rank)
    ):
        return
    shape = _shape(conv.result)
    order = [numbers.output_batch_dimension, *spatial, numbers.output_feature_dimension]
    _renumber(
        conv,
        output_batch_dimension=0,
        output_feature_dimension=rank - 1,
        output_spatial_dimensions=list(range(1, rank - 1)),
    )
    conv.result.set_type(shaped_like(conv.result, [shape[d] for d in order]))
    with ir.InsertionPoint.after(conv):
        back = transpose(conv.result, _inverse(order))
    conv.result.replace_all_uses_except(back, producer(back))


def _absorb_into_convolution(conv: Any) -> bool:
    """Fold a layout transpose of the convolution's input into its dimension numbers."""
    permutation = _layout_transpose(conv.operands[0])
    if permutation is None:
        return False
    numbers = ConvDimensionNumbers(conv.attributes["dimension_numbers"])
    _renumber(
        conv,
        input_batch_dimension=permutation[numbers.input_batch_dimension],
        input_feature_dimension=permutation[numbers.input_feature_dimension],
        input_spatial_dimensions=[permutation[d] for d in numbers.input_spatial_dimensions],
    )
    moved = producer(conv.operands[0])
    conv.operands[0] = moved.operands[0]
    if not list(moved.result.uses):
        _erase(moved)
    return True


def _movable(value: Any, permutation: list[int]) -> bool:
    """Whether `value`, an operand of an elementwise op, can be had in the layout before a
    `permutation` transpose without a transpose of its own."""
    op = producer(value)
    name = "" if op is None else op.name
    if name == "stablehlo.constant":
        constant = dense_constant(op)
        return constant is not None and cast(bool, constant.is_splat)
    return name == "stablehlo.broadcast_in_dim" or _layout_transpose(value) == permutation


def _untransposed(value: Any, permutation: list[int], shape: list[int]) -> Any:
    """`value` (`_movable`) in the layout before the `permutation` transpose, of `shape`."""
    op = producer(value)
    name = op.name
    if name == "stablehlo.transpose":
        return op.operands[0]
    kind = shaped_like(value, shape)
    if name == "stablehlo.constant":
        splat = ir.DenseElementsAttr(op.attributes["value"]).get_splat_value()
        return create(name, kind, [], {"value": ir.DenseElementsAttr.get_splat(kind, splat)})
    dims = ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"])
    moved = ir.DenseI64ArrayAttr.get([permutation[d] for d in dims])
    return create(name, kind, [op.operands[0]], {"broadcast_dimensions": moved})


def _sink_through_elementwise(op: Any) -> bool:
    """op(transpose(a), transpose(b), broadcast(c)) as transpose(op(a, b, broadcast'(c)))."""
    moving = [_layout_transpose(value) for value in op.operands]
    permutation = next((p for p in moving if p is not None), None)
    if (
        permutation is None
        or len(op.results) != 1
        or not all(_movable(value, permutation) for value in op.operands)
    ):
        return False
    shapes = [_shape(value) for value in op.operands]  # ranked: transposes, broadcasts, splats
    if shapes.count(_shape(op.result)) != len(shapes):
        return False
    shape = _shape(producer(op.operands[moving.index(permutation)]).operands[0])
    with ir.InsertionPoint(op), op.location:
        operands = [_untransposed(value, permutation, shape) for value in op.operands]
        attributes = {name: op.attributes[name] for name in op.attributes}
        moved = create(op.operation.name, shaped_like(op.result, shape), operands, attributes)
        op.result.replace_all_uses_with(transpose(moved, permutation))
    _erase(op)
    return True


def _sink_through_windows(op: Any) -> bool:
    """op(transpose(x)) as transpose(op(x)) for `reduce_window`, `pad` and `slice`, whose
    per-dimension attributes are permuted (their other operands are scalars)."""
    permutation = _layout_transpose(op.operands[0]) if len(op.results) == 1 else None
    if permutation is None:
        return False
    inverse = _inverse(permutation)
    with ir.InsertionPoint(op), op.location:
        moved = op.operation.clone()
        moved.operands[0] = producer(op.operands[0]).operands[0]
        for name in _PER_DIMENSION:
            if name in moved.attributes:
                values = list(ir.DenseI64ArrayAttr(moved.attributes[name]))
                moved.attributes[name] = ir.DenseI64ArrayAttr.get([values[i] for i in inverse])
        if "padding" in moved.attributes:  # reduce_window's, low and high per dimension
            pads = ir.DenseIntElementsAttr(moved.attributes["padding"])
            rows = [[pads[2 * i], pads[2 * i + 1]] for i in inverse]
            moved.attributes["padding"] = ir.DenseIntElementsAttr.get(
                np.array(rows, dtype=np.int64)
            )
        shape = _shape(op.result)
        moved.result.set_type(shaped_like(op.result, [shape[i] for i in inverse]))
        op.result.replace_all_uses_with(transpose(moved.result, permutation))
    _erase(op)
    return True


def _sink_through_concatenate(op: Any) -> bool:
    """concatenate(transpose(a), transpose(b)) as transpose(concatenate(a, b)), joined along
    the same dimension of a and b."""
    moving = [_layout_transpose(value) for value in op.operands]
    permutation = moving[0]
    if permutation is None or moving.count(permutation) != len(moving):
        return False
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    inverse = _inverse(permutation)
    shape = _shape(op.result)
    with ir.InsertionPoint(op), op.location:
        joined = create(
            "stablehlo.concatenate",
            shaped_like(op.result, [shape[i] for i in inverse]),
            [producer(value).operands[0] for value in op.operands],
            {
                "dimension": ir.IntegerAttr.get(
                    ir.IntegerType.get_signless(64), permutation[dimension]
                )
            },
        )
        op.result.replace_all_uses_with(transpose(joined, permutation))
    _erase(op)
    return True


def _sink_through_reduce(op: Any) -> bool:
    """reduce(transpose(x)) as reduce(x) over the same dimensions of x, the kept ones in
    their order in x, then transposed back when that order differs."""
    if len(op.results) != 1:
        return False
    permutation = _layout_transpose(op.operands[0])
    if permutation is None:
        return False
    dims = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    kept = [permutation[d] for d in range(len(permutation)) if d not in dims]
    with ir.InsertionPoint(op), op.location:
        moved = op.operation.clone()
        moved.operands[0] = producer(op.operands[0]).operands[0]
        moved.attributes["dimensions"] = ir.DenseI64ArrayAttr.get(
            sorted(permutation[d] for d in dims)
        )
        order = sorted(kept)
        shape = _shape(op.result)
        moved.result.set_type(shaped_like(op.result, [shape[kept.index(d)] for d in order]))
        op.result.replace_all_uses_with(transpose(moved.result, [order.index(d) for d in kept]))
    _erase(op)
    return True


def _cancel(op: Any) -> bool:
    """transpose(transpose(x)) as one transpose, or as x when they are inverses."""
    inner = producer(op.operands[0])
    if inner is None or inner.name != "stablehlo.transpose":
        return False
    first, second = _permutation(inner), _permutation(op)
    with ir.InsertionPoint(op), op.location:
        combined = transpose(inner.operands[0], [first[i] for i in second])
    op.result.replace_all_uses_with(combined)
    _erase(op)
    return True


def _erase(op: Any) -> None:
    """Erase `op`, and the transposes, broadcasts and constants it alone used."""
    feeding = {producer(value) for value in op.operands} - {None}
    op.operation.erase()
    for source in feeding:
        if source.name in _DISPOSABLE and not list(source.result.uses):
            _erase(source)


def _step(op: Any) -> bool:
    name = op.operation.name
    if name == "stablehlo.convolution":
        return _absorb_into_convolution(op)
    if name == "stablehlo.transpose":
        return _cancel(op)
    if name in ("stablehlo.reduce_window", "stablehlo.pad", "stablehlo.slice"):
        return _sink_through_windows(op)
    if name == "stablehlo.concatenate":
        return _sink_through_concatenate(op)
    if name == "stablehlo.reduce":
        return _sink_through_reduce(op)
    return name in ELEMENTWISE and _sink_through_elementwise(op)


@register_pass("shlo-channels-last")
def channels_last(module: Any, options: None) -> None:
    """Convolutions channels-last, the transposes back moved down until they cancel.

    Each convolution gets a channels-last result, and the transposes back to the model's
    layout move below every op that allows it, cancelling against their inverses."""
    with module.context:
        convolutions = ops_in(module, "stablehlo.convolution")
        for conv in convolutions:
            with conv.location:
                _channels_last_output(conv)
        changed = bool(convolutions)
        while changed:
            changed = False
            for op in ops_in(module):
                changed = _step(op) or changed
