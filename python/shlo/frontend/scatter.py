"""Scatters that reduce, as ATen computes them.

torch-mlir's conversion to StableHLO lowers `scatter.src` and `scatter_add` only, so
`scatter_reduce` (sum, prod, mean, amax, amin), `scatter` with `reduce=`, `index_reduce` and
`segment_reduce` could not be imported.  The last three are rewritten here, in ATen, as
`scatter_reduce`, which is rewritten in the torch backend IR (statically shaped tensors
only) as a `stablehlo.scatter` whose region is the reduction, between
`torch_c.to_builtin_tensor` and `torch_c.from_builtin_tensor` as
`shlo.frontend.complex_to_stablehlo` does.  As ATen's kernel: without `include_self` the
positions scattered to first take the reduction's identity; the mean divides by how many
values each position took (its own among them with `include_self`, at least 1), rounding
down for integers; amax and amin propagate NaN (`stablehlo.maximum` does).  A dense
formulation (one-hot masks) would take memory quadratic in the sizes.

`histc`, `histogram` and `histogramdd`, which torch-mlir cannot lower either, are a
`scatter_add` of ones (or weights) into their bins (a point's bin in every dim at once), `put`
an `index_put` into the flattened tensor and `diagonal_scatter` a `where` over the diagonal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import torch

from shlo.frontend.backend_ir import (
    compare,
    constant,
    literal,
    reshape,
    rewrite_ops,
    shape_and_element,
    tensor_type,
    to_builtin,
)
from shlo.ir.edit import create
from shlo.ir.stablehlo import ir

aten = torch.ops.aten

# reduce= of aten.scatter and its scatter_reduce name
_SCATTER_REDUCE = {"add": "sum", "multiply": "prod"}


def scatter_reduce_of(x: torch.Tensor, dim: int, index: torch.Tensor, src: Any, reduce: str) -> Any:
    """aten.scatter with `reduce=` ("add" or "multiply"; of a tensor or a number) as the
    scatter_reduce it is, its own values included."""
    if not isinstance(src, torch.Tensor):
        src = torch.full(index.shape, src, dtype=x.dtype)
    return aten.scatter_reduce.two(x, dim, index, src, _SCATTER_REDUCE[reduce], include_self=True)


def index_reduce(
    x: torch.Tensor,
    dim: int,
    index: torch.Tensor,
    source: torch.Tensor,
    reduce: str,
    *,
    include_self: bool = True,
) -> Any:
    """aten.index_reduce as scatter_reduce, its index repeated along `source`'s other dims."""
    dim = dim % max(x.dim(), 1)
    shape = [-1 if d == dim else 1 for d in range(source.dim())]
    expanded = index.reshape(shape).expand(source.shape) if source.dim() else index.reshape(())
    return aten.scatter_reduce.two(x, dim, expanded, source, reduce, include_self=include_self)


# scatter_reduce's reduce= -> the region's op
_COMBINE = {
    "sum": "stablehlo.add",
    "mean": "stablehlo.add",
    "prod": "stablehlo.multiply",
    "amax": "stablehlo.maximum",
    "amin": "stablehlo.minimum",
}
_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})
_INTEGERS = {"si8": 8, "si16": 16, "si32": 32, "si64": 64}


def _static(value: Any) -> tuple[list[int], str]:
    found = shape_and_element(value)
    assert found is not None  # checked by `_rewritable`
    return found


def _identity(reduce: str, element: str) -> float:
    """What scatter_reduce's kernel starts a position at without `include_self`."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if element in _FLOATS:
        return float("-inf") if reduce == "amax" else float("inf")
    bits = _INTEGERS[element]
    return -(1 << (bits - 1)) if reduce == "amax" else (1 << (bits - 1)) - 1


def _scatter(operand: Any, coordinates: Any, updates: Any, combine: str | None) -> Any:
    """`stablehlo.scatter` of one element per coordinate, combined by `combine` (the update
    replacing the value when None)."""
    kind = ir.RankedTensorType(operand.type)
    rank = kind.rank
    numbers = ir.Attribute.parse(
        f"#stablehlo.scatter<inserted_window_dims = {list(range(rank))}, "
        f"scatter_dims_to_operand_dims = {list(range(rank))}, index_vector_dim = {rank}>"
    )
    op = ir.Operation.create(
        "stablehlo.scatter",
        results=[kind],
        operands=[operand, coordinates, updates],
        attributes={"scatter_dimension_numbers": numbers},
        regions=1,
    )
    scalar = ir.RankedTensorType.get([], kind.element_type)
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        old, new = block.arguments
        value = new if combine is None else create(combine, scalar, [old, new])
        ir.Operation.create("stablehlo.return", operands=[value])
    return op.results[0]


def _coordinates(index: Any, shape: list[int], dim: int) -> Any:
    """The full coordinates (`shape` + [rank]) each element of `index` scatters to: its own
    position, with the index's value along `dim`."""
    i64 = ir.IntegerType.get_signless(64)
    column = [*shape, 1]
    parts = []
    for d in range(len(shape)):
        if d == dim:
            kind = ir.RankedTensorType(index.type)
            if kind.element_type != i64:
                index = create("stablehlo.convert", tensor_type(list(kind.shape), i64), [index])
            parts.append(create("stablehlo.reshape", tensor_type(column, i64), [index]))
        else:
            iota = {"iota_dimension": ir.IntegerAttr.get(i64, d)}
            parts.append(create("stablehlo.iota", tensor_type(column, i64), [], iota))
    along = {"dimension": ir.IntegerAttr.get(i64, len(shape))}
    return create("stablehlo.concatenate", tensor_type([*shape, len(shape)], i64), parts, along)


def _floor_divide(total: Any, count: Any) -> Any:
    """`total // count` of integers with `count` positive, rounding down."""
    kind = total.type
    shape = list(ir.RankedTensorType(kind).shape)
    element = ir.RankedTensorType(kind).element_type
    quotient = create("stablehlo.divide", kind, [total, count])
    rest = create("stablehlo.remainder", kind, [total, count])
    zero = constant(shape, element, 0)
    booleans = tensor_type(shape, ir.IntegerType.get_signless(1))
    inexact = compare(booleans, rest, zero, "NE")
    negative = compare(booleans, total, zero, "LT")
    down = create("stablehlo.and", booleans, [inexact, negative])
    lowered = create("stablehlo.subtract", kind, [quotient, constant(shape, element, 1)])
    return create("stablehlo.select", kind, [down, lowered, quotient])


def _scatter_reduce(op: Any, dim: int, reduce: str, include_self: bool) -> Any:
    """The StableHLO of `op` (an aten.scatter_reduce.two of static shapes), as a builtin tensor."""
    shape, element = _static(op.results[0])
    index_shape, _ = _static(op.operands[2])
    src_shape, _ = _static(op.operands[3])
    rank = max(len(shape), 1)
    x, index, src = (to_builtin(op.operands[i]) for i in (0, 2, 3))
    if not shape:  # a 0-d tensor scatters as a 1-element one
        x, index, src = (reshape(v, [1]) for v in (x, index, src))
        shape = index_shape = src_shape = [1]
    if 0 in index_shape:
        result = x
    else:
        if src_shape != index_shape:
            slicing = {
                "start_indices": ir.DenseI64ArrayAttr.get([0] * rank),
                "limit_indices": ir.DenseI64ArrayAttr.get(index_shape),
                "strides": ir.DenseI64ArrayAttr.get([1] * rank),
            }
            src = create("stablehlo.slice", tensor_type(index_shape, element), [src], slicing)
        coordinates = _coordinates(index, index_shape, dim % rank)
        if not include_self:
            start = constant(index_shape, element, _identity(reduce, element))
            x = _scatter(x, coordinates, start, None)
        result = _scatter(x, coordinates, src, _COMBINE[reduce])
        if reduce == "mean":
            ones = constant(index_shape, element, 1)
            count = _scatter(constant(shape, element, int(include_self)), coordinates, ones,
                             "stablehlo.add")  # fmt: skip
            booleans = tensor_type(shape, ir.IntegerType.get_signless(1))
            none = compare(booleans, count, constant(shape, element, 0), "EQ")
            count = create("stablehlo.select", count.type,
                           [none, constant(shape, element, 1), count])  # fmt: skip
            if element in _FLOATS:
                result = create("stablehlo.divide", result.type, [result, count])
            else:
                result = _floor_divide(result, count)
    final, _ = _static(op.results[0])
    return result if final == shape else reshape(result, final)


def _rewritable(op: Any) -> tuple[int, str, bool] | None:
    """The dim, reduction and include_self of a scatter_reduce `op` this module rewrites:
    static shapes, floats or signed integers, constant arguments."""
    values = [op.results[0], op.operands[0], op.operands[2], op.operands[3]]
    found = [shape_and_element(v) for v in values]
    if any(f is None for f in found):
        return None
    elements = {f[1] for f in found[:2] + found[3:] if f is not None}
    if len(elements) != 1 or not elements <= _FLOATS | _INTEGERS.keys():
        return None
    dim, reduce, include_self = (literal(op.operands[i]) for i in (1, 4, 5))
    if not isinstance(dim, int) or reduce not in _COMBINE or not isinstance(include_self, bool):
        return None
    return dim, reduce, include_self


def lower_scatter_reductions(module: Any) -> None:
    """Rewrite, in place, each aten.scatter_reduce.two of a torch backend IR `module` that
    `_rewritable` accepts as StableHLO; others are left for torch-mlir to refuse."""

    def plan(op: Any) -> Callable[[], Any] | None:
        if op.name != "torch.aten.scatter_reduce.two":
            return None
        arguments = _rewritable(op)
        return None if arguments is None else lambda: _scatter_reduce(op, *arguments)

    rewrite_ops(module, plan)


def put_by_mask(
    x: torch.Tensor, indices: list[Any], values: torch.Tensor, accumulate: bool = False
) -> Any:
    """aten.index_put whose one tensor index is a boolean mask (the others full slices) as a
    `where` over the mask: the value for the mask's n-th true element is the n-th along the
    values' matching dim (a cumulative count of the mask), or the one value it broadcasts.
    torch-mlir's own route goes through `nonzero`, whose shape depends on the values."""
    tensors = [(d, i) for d, i in enumerate(indices) if i is not None]
    masks = [(d, i) for d, i in tensors if i.dtype == torch.bool]
    if len(masks) != 1 or masks[0][1].numel() == 0:
        return NotImplemented  # integer indices lower as they are
    if len(tensors) > 1:
        return _put_by_mask_and_integers(x, indices, values, accumulate)
    start, mask = masks[0]
    rest = x.dim() - start - mask.dim()  # the dims after the mask's
    rank = start + 1 + rest  # the indexed part's, the mask's elements one dim
    if values.dim() > rank or 0 in values.shape:
        return NotImplemented
    values = values.to(x.dtype).reshape([1] * (rank - values.dim()) + list(values.shape))
    size = values.shape[start]
    elements = [1] * mask.dim()
    if size != 1:
        counted = torch.cumsum(mask.reshape(-1).to(torch.int64), 0)
        aten._assert_scalar(
            counted[-1].item() == size,
            "shape mismatch: the values do not match the mask's true elements",
        )
        values = torch.index_select(values, start, torch.clamp(counted - 1, 0, size - 1))
        elements = list(mask.shape)
    taken = values.reshape([*values.shape[:start], *elements, *values.shape[start + 1 :]])
    where = mask.reshape([*mask.shape, *[1] * rest])
    return torch.where(where, x + taken if accumulate else taken, x)


def row_major_coordinates(flat: torch.Tensor, shape: list[int]) -> list[torch.Tensor]:
    """The coordinates in `shape` of each row-major position in `flat`, one tensor per dim
    (`torch.unravel_index`, which cannot be traced in a decomposition)."""
    coordinates = []
    for extent in reversed(shape):
        coordinates.append(torch.remainder(flat, extent))
        flat = torch.div(flat, extent, rounding_mode="floor")
    return coordinates[::-1]


def _put_by_mask_and_integers(
    x: torch.Tensor, indices: list[Any], values: torch.Tensor, accumulate: bool
) -> Any:
    """index_put of a boolean mask broadcast with integer indices of a last dim d > 1: the
    mask's true elements must be d or 1, so the mask is their d coordinates (the i-th true
    element's, or the one's d times), found by a stable sort putting true first."""
    (mask,) = [i for i in indices if i is not None and i.dtype == torch.bool]
    # the integer indices' broadcast last dim (sizes there are equal or 1)
    size = max(
        (i.shape[-1] for i in indices if i is not None and i.dim() and i is not mask), default=1
    )
    if size == 1:
        return NotImplemented  # as many values as true elements: left to torch-mlir
    count = mask.sum()
    aten._assert_scalar(
        ((count == size) | (count == 1)).to(torch.int64).item() == 1,
        "shape mismatch: the mask's true elements do not broadcast with the integer indices",
    )
    first = torch.sort((~mask).reshape(-1).to(torch.int32), stable=True).indices
    slots = torch.where(count == size, torch.arange(size), 0)
    flat = torch.index_select(first, 0, slots)
    coordinates = row_major_coordinates(flat, list(mask.shape))
    replaced: list[Any] = []
    for index in indices:
        replaced.extend(coordinates if index is mask else [index])
    return aten.index_put.default(x, replaced, values, accumulate)


def diagonal_scatter(
    x: torch.Tensor, src: torch.Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Any:
    """aten.diagonal_scatter as a `where` over the diagonal's positions, each taking the value
    of `src` at its place along the diagonal."""
    dim1, dim2 = dim1 % x.dim(), dim2 % x.dim()
    rows, columns = x.shape[dim1], x.shape[dim2]
    if src.shape[-1] == 0:
        return x.clone()
    i = torch.arange(rows).unsqueeze(1)
    j = torch.arange(columns).unsqueeze(0)
    along = torch.clamp(i if offset >= 0 else j, 0, src.shape[-1] - 1)
    values = torch.index_select(src, -1, along.expand(rows, columns).reshape(-1))
    values = values.reshape(*src.shape[:-1], rows, columns).movedim((-2, -1), (dim1, dim2))
    on = (j - i == offset).expand(*src.shape[:-1], rows, columns).movedim((-2, -1), (dim1, dim2))
    return torch.where(on, values, x)


def put(
    x: torch.Tensor, index: torch.Tensor, source: torch.Tensor, accumulate: bool = False
) -> Any:
    """aten.put as an index_put into the flattened tensor, negative indices counted from the
    end; an index out of range stops the call, as in eager."""
    size = x.numel()
    flat = index.reshape(-1)
    torch._assert_async(
        ((flat >= -size) & (flat < size)).all(),
        f"out of range: an index of put is past the tensor's {size} elements",
    )
    flat = torch.where(flat < 0, flat + size, flat)
    put_in = aten.index_put.default(x.reshape(-1), [flat], source.reshape(-1), accumulate)
    return put_in.reshape(x.shape)


# reduce= of segment_reduce -> scatter_reduce's name and the value an empty segment starts at
_SEGMENT_REDUCTIONS = {
    "max": ("amax", -math.inf), "min": ("amin", math.inf), "sum": ("sum", 0.0),
    "mean": ("sum", 0.0), "prod": ("prod", 1.0),
}  # fmt: skip


def segment_reduce(
    data: torch.Tensor,
    reduce: str,
    *,
    lengths: torch.Tensor | None = None,
    indices: torch.Tensor | None = None,
    offsets: torch.Tensor | None = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: Any = None,
) -> Any:
    """aten.segment_reduce as a scatter_reduce of each position along `axis` into its segment
    (found by a binary search of the segments' ends), as ATen's CPU kernel reduces: from
    `initial` or the reduction's identity, NaN kept by max and min, a mean of an empty segment
    NaN (`initial` if given).  Positions outside every segment go to one more segment that is
    cut off.  Without `unsafe`, lengths that are negative or do not add up to the axis stop
    the call, as in eager."""
    if indices is not None or reduce not in _SEGMENT_REDUCTIONS or not data.is_floating_point():
        return NotImplemented
    axis = axis % data.dim()
    size = data.shape[axis]
    if lengths is not None:
        if not unsafe:
            torch._assert_async((lengths >= 0).all(), "lengths contains negative value!")
            torch._assert_async(
                (lengths.sum(-1) == size).all(),
                "segment_reduce(): Expected all rows of lengths along axis to sum to "
                "data.size(lengths.dim()-1) when !unsafe.",
            )
        ends = torch.cumsum(lengths, -1)
        starts = ends - lengths
    elif offsets is not None:
        starts, ends = offsets[..., :-1], offsets[..., 1:]
    else:
        return NotImplemented
    count = ends.shape[-1]
    positions = torch.arange(size, dtype=ends.dtype).expand(*ends.shape[:-1], size).contiguous()
    segment = torch.searchsorted(ends.contiguous(), positions, right=True)
    outside = (positions < starts[..., :1]) | (segment >= count)
    segment = torch.where(outside, count, segment)
    inner = [1] * (data.dim() - axis - 1)
    index = segment.reshape(*segment.shape, *inner).expand(data.shape)
    name, identity = _SEGMENT_REDUCTIONS[reduce]
    shape = [*data.shape[:axis], count + 1, *data.shape[axis + 1 :]]
    start = torch.full(shape, identity if initial is None else initial, dtype=data.dtype)
    reduced = aten.scatter_reduce.two(start, axis, index, data, name, include_self=True)
    reduced = reduced.narrow(axis, 0, count)
    if reduce != "mean":
        return reduced
    taken = (ends - starts).reshape(*ends.shape, *inner)
    empty = math.nan if initial is None else initial
    return torch.where(taken == 0, empty, reduced / taken.clamp(min=1).to(data.dtype))


def histc(x: torch.Tensor, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:  # noqa: A002
    """aten.histc as ATen's CPU kernel bins: each value in [min, max] (NaN in none) counted
    in bin trunc((x - min) * bins / (max - min)), the last bin closed; equal bounds take the
    values' own extremes, widened by 1 (or one float) where those are equal too.  A range
    that is not finite stops the call, as in eager."""
    low, high = float(min), float(max)
    if not x.is_floating_point() or low > high or not math.isfinite(low + high):
        return NotImplemented
    flat = x.reshape(-1)
    if low == high and flat.numel():
        low_value, high_value = flat.amin(), flat.amax()
    else:
        low_value, high_value = (torch.full((), v, dtype=x.dtype) for v in (low, high))
    if low == high:
        same = low_value == high_value
        below = torch.nextafter(low_value, torch.full((), -math.inf, dtype=x.dtype))
        above = torch.nextafter(high_value, torch.full((), math.inf, dtype=x.dtype))
        low_value = torch.where(same, torch.minimum(below, low_value - 1), low_value)
        high_value = torch.where(same, torch.maximum(above, high_value + 1), high_value)
        torch._assert_async(
            torch.isfinite(low_value) & torch.isfinite(high_value),
            "torch.histc: range of [min, max] is not finite",
        )
    position = ((flat - low_value) * bins / (high_value - low_value)).to(torch.int64)
    return _binned(flat, position, low_value, high_value, bins, torch.ones_like(flat))


def _binned(
    flat: torch.Tensor,
    position: torch.Tensor,
    low: torch.Tensor,
    high: torch.Tensor,
    bins: int,
    weight: torch.Tensor,
) -> torch.Tensor:
    """The sums of `weight` by bin, each value at its `position` (the last bin closed), values
    outside [low, high] and NaN left out."""
    position = torch.where(position == bins, bins - 1, position)
    position = torch.where((flat >= low) & (flat <= high), position, bins)
    counts = torch.zeros(bins + 1, dtype=weight.dtype).scatter_add(0, position, weight)
    return counts[:bins]


def _linspace(start: torch.Tensor, end: torch.Tensor, steps: int) -> torch.Tensor:
    """ATen's linspace of 0-d `start` and `end`: the first half stepped up from `start`, the
    rest down from `end`, so both ends are exact."""
    index = torch.arange(steps, dtype=start.dtype)
    step = (end - start) / max(steps - 1, 1)
    return torch.where(index < steps // 2, start + step * index, end - step * (steps - 1 - index))


def _edges(column: torch.Tensor, bins: Any, limits: Any, dim: int) -> torch.Tensor:
    """One dimension's bin edges: `bins` as given, or that many bins spanning `limits` or the
    column's extremes (widened by 1/2 where equal, [0, 1] for no values), which must be
    finite."""
    if isinstance(bins, torch.Tensor):
        return bins
    if limits is not None:
        low, high = (torch.full((), float(v), dtype=column.dtype) for v in limits)
    elif column.numel() == 0:
        low, high = torch.zeros((), dtype=column.dtype), torch.ones((), dtype=column.dtype)
    else:
        low, high = column.amin(), column.amax()
        torch._assert_async(
            torch.isfinite(low) & torch.isfinite(high),
            f"torch.histogramdd: dimension {dim}'s range is not finite",
        )
    same = low == high
    return _linspace(
        torch.where(same, low - 0.5, low), torch.where(same, high + 0.5, high), bins + 1
    )


def _histogramdd(
    points: torch.Tensor,
    bins: Sequence[Any],
    limits: Any,
    weight: torch.Tensor | None,
    density: bool,
) -> Any:
    """ATen's histogramdd of `points` ([N, D]) on the CPU: each point counted (or weighed) in
    the bin whose edges hold it in every dimension (each last bin closed), points with NaN or
    outside the edges left out; `density` divides by the total and by each bin's widths."""
    if not points.is_floating_point():
        return NotImplemented
    if limits is not None and not math.isfinite(sum(limits)):
        return NotImplemented
    dims = points.shape[-1]
    edges, counts = [], []
    cell = torch.zeros(points.shape[0], dtype=torch.int64)
    inside = torch.ones(points.shape[0], dtype=torch.bool)
    for d in range(dims):
        column = points[:, d]
        span = None if limits is None else limits[2 * d : 2 * d + 2]
        edge = _edges(column, bins[d], span, d)
        count = edge.shape[0] - 1
        position = torch.searchsorted(edge, column, right=True) - 1
        position = torch.where(position == count, count - 1, position)
        inside = inside & (column >= edge[0]) & (column <= edge[-1])
        cell = cell * count + position
        edges.append(edge)
        counts.append(count)
    total = math.prod(counts)
    weights = torch.ones_like(points[:, 0]) if weight is None else weight.reshape(-1)
    cell = torch.where(inside, cell, total)
    hist = torch.zeros(total + 1, dtype=weights.dtype).scatter_add(
        0, cell, weights.to(points.dtype)
    )
    hist = hist[:total].reshape(counts)
    if density:
        hist = hist / hist.sum()
        for d, edge in enumerate(edges):
            shape = [1] * dims
            shape[d] = counts[d]
            hist = hist / (edge[1:] - edge[:-1]).reshape(shape)
    return hist, edges


def histogram(
    x: torch.Tensor,
    bins: Any = 100,
    *,
    range: Any = None,  # noqa: A002 (ATen's name)
    weight: torch.Tensor | None = None,
    density: bool = False,
) -> Any:
    """aten.histogram by a bin count or by edges: the 1-d histogramdd of every value."""
    found = _histogramdd(x.reshape(-1, 1), [bins], range, weight, density)
    if found is NotImplemented:
        return found
    hist, (edges,) = found
    return hist, edges


def histogramdd(
    x: torch.Tensor,
    bins: Any,
    range: Any = None,  # noqa: A002 (ATen's name)
    weight: torch.Tensor | None = None,
    density: bool = False,
) -> Any:
    """aten.histogramdd of the points along `x`'s last dim, by a bin count for every dim, a
    count per dim, or edges per dim."""
    dims = x.shape[-1]
    per_dim = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    return _histogramdd(x.reshape(-1, dims), per_dim, range, weight, density)


SCATTER: dict[Any, Callable[..., Any]] = {
    aten.scatter.reduce: scatter_reduce_of,
    aten.scatter.value_reduce: scatter_reduce_of,
    aten.index_reduce.default: index_reduce,
    aten.index_put.default: put_by_mask,
    aten.diagonal_scatter.default: diagonal_scatter,
    aten.put.default: put,
    aten.segment_reduce.default: segment_reduce,
    aten.histc.default: histc,
    aten.histogram.bin_ct: histogram,
    aten.histogram.bins_tensor: histogram,
    aten.histogramdd.default: histogramdd,
    aten.histogramdd.int_bins: histogramdd,
    aten.histogramdd.TensorList_bins: histogramdd,
}
