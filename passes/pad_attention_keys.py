"""`shlo-pad-attention-keys`: attention over a key count that is no multiple of the vector width,
computed over zero keys padded to the next multiple.

IREE 3.13's CPU code runs a softmax whose rows are not a multiple of its vector width, and the
packing of such a matrix for the next matmul, about three times slower per element than an
aligned one (a ViT's 197 tokens).  Here the key dimension of the scores, a free dimension of a
`dot_general`, is padded from its operand with zeros and carried through the elementwise ops,
broadcasts, reshapes, transposes and reductions over other dimensions that follow.  The padded
keys never reach a result: a reduction over them sees its init value there, the matmul that
contracts them sees zeros on both sides, and any other use gets the unpadded slice.  So the
numbers are those of the unpadded program.

A key dimension is padded only when the program both reduces over it (the softmax) and
contracts it (the matmul with the values); every other program is left as it was.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from shlo.errors import PipelineError
from shlo.ir.edit import combiner, create, dense_constant, ops_in, producer, shaped_like
from shlo.ir.elementwise import ELEMENTWISE, FLOATS, compare, zeros
from shlo.ir.stablehlo import DotDimensionNumbers, ir
from shlo.pipeline.python_pass import register_pass

# Element types a carried value may have: float math on padded keys cannot trap, and
# comparisons of them give i1.
_CARRIED_TYPES = (*FLOATS, "i1")
# Outside operands of the region's ops that the padded copies replace, erased when unused.
_DISPOSABLE = ("stablehlo.broadcast_in_dim", "stablehlo.constant")


@dataclass(frozen=True)
class PadAttentionKeysOptions:
    multiple: int = field(
        default=16, metadata={"help": "pad the key count up to a multiple of this"}
    )

    def __post_init__(self) -> None:
        if self.multiple < 1:
            raise PipelineError(f"option 'multiple': {self.multiple} is not a positive count")


@dataclass
class _Region:
    """The values that carry the key dimension (and which of their dimensions it is), the
    ops that compute them, and where the padded keys leave."""

    size: int
    axis: dict[Any, int] = field(default_factory=dict)
    ops: set[Any] = field(default_factory=set)
    reductions: list[Any] = field(default_factory=list)
    contractions: list[tuple[Any, int]] = field(default_factory=list)
    exits: list[tuple[Any, int, Any]] = field(default_factory=list)


def _shape(value: Any) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _static(value: Any) -> bool:
    kind = value.type
    return isinstance(kind, ir.RankedTensorType) and kind.has_static_shape


def _carries(value: Any) -> bool:
    return _static(value) and str(ir.RankedTensorType(value.type).element_type) in _CARRIED_TYPES


def _numbers(dot: Any) -> Any:
    return DotDimensionNumbers(dot.attributes["dot_dimension_numbers"])


def _free_dimensions(dot: Any) -> list[tuple[int, int]]:
    """(operand, dimension) of each free dimension of a `dot_general`, in result order
    (after the batch dimensions)."""
    numbers = _numbers(dot)
    sides = (
        (numbers.lhs_batching_dimensions, numbers.lhs_contracting_dimensions),
        (numbers.rhs_batching_dimensions, numbers.rhs_contracting_dimensions),
    )
    return [
        (side, d)
        for side, (batch, contracting) in enumerate(sides)
        for d in range(len(_shape(dot.operands[side])))
        if d not in batch and d not in contracting
    ]


def _reshaped_axis(before: list[int], after: list[int], axis: int) -> int | None:
    """Where dimension `axis` of `before` is in `after` when a reshape keeps it whole."""
    prefix = math.prod(before[:axis])
    for position, size in enumerate(after):
        if size == before[axis] and math.prod(after[:position]) == prefix:
            return position
    return None


def _carried_axis(user: Any, index: int, axis: int, size: int) -> int | None:
    """The dimension of `user`'s result that carries the keys when its operand `index`
    carries them at `axis`; None when `user` is not one the keys pass through."""
    name = user.name
    if len(user.results) != 1 or not _carries(user.result):
        return None
    if name in ELEMENTWISE:
        return axis if _shape(user.result) == _shape(user.operands[index]) else None
    if name == "stablehlo.transpose":
        return list(ir.DenseI64ArrayAttr(user.attributes["permutation"])).index(axis)
    if name == "stablehlo.broadcast_in_dim":
        moved = list(ir.DenseI64ArrayAttr(user.attributes["broadcast_dimensions"]))[axis]
        return moved if _shape(user.result)[moved] == size else None
    if name == "stablehlo.reshape":
        return _reshaped_axis(_shape(user.operands[0]), _shape(user.result), axis)
    if name == "stablehlo.reduce" and index == 0 and len(user.operands) == 2:
        dims = list(ir.DenseI64ArrayAttr(user.attributes["dimensions"]))
        return cast("int | None", axis - sum(d < axis for d in dims))
    return None


def _contracted(user: Any, index: int, axis: int) -> bool:
    numbers = _numbers(user)
    contracting = (numbers.lhs_contracting_dimensions, numbers.rhs_contracting_dimensions)
    return axis in contracting[index]


def _region(dot: Any, axis: int) -> _Region | None:
    """The ops the key dimension `axis` of `dot`'s result flows through, or None when one of
    them gives it two different places."""
    region = _Region(size=_shape(dot.result)[axis], axis={dot.result: axis})
    pending = [dot.result]
    while pending:
        value = pending.pop()
        axis = region.axis[value]
        for use in list(value.uses):
            user, index = use.owner, use.operand_number
            name = user.name
            if name == "stablehlo.reduce" and index == 0 and len(user.operands) == 2:
                if axis in list(ir.DenseI64ArrayAttr(user.attributes["dimensions"])):
                    region.reductions.append(user)
                    continue
            if name == "stablehlo.dot_general" and _contracted(user, index, axis):
                region.contractions.append((user, index))
                continue
            moved = _carried_axis(user, index, axis, region.size)
            if moved is None:
                region.exits.append((user, index, value))
                continue
            known = region.axis.get(user.result)
            if known is None:
                region.axis[user.result] = moved
                region.ops.add(user.operation)
                pending.append(user.result)
            elif known != moved:
                return None
    return region


def _padded(shape: list[int], axis: int, size: int) -> list[int]:
    return [size if d == axis else extent for d, extent in enumerate(shape)]


def _pad(value: Any, axis: int, extra: int) -> Any:
    """`value` with `extra` zeros after its end along `axis`."""
    rank = len(_shape(value))
    scalar = ir.RankedTensorType.get([], ir.RankedTensorType(value.type).element_type)
    high = [extra if d == axis else 0 for d in range(rank)]
    attributes = {
        "edge_padding_low": ir.DenseI64ArrayAttr.get([0] * rank),
        "edge_padding_high": ir.DenseI64ArrayAttr.get(high),
        "interior_padding": ir.DenseI64ArrayAttr.get([0] * rank),
    }
    padded = shaped_like(value, [a + b for a, b in zip(_shape(value), high, strict=True)])
    return create("stablehlo.pad", padded, [value, zeros(scalar)], attributes)


def _broadcast(value: Any, kind: Any, dims: list[int]) -> Any:
    attributes = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get(dims)}
    return create("stablehlo.broadcast_in_dim", kind, [value], attributes)


def _widened(value: Any, axis: int, size: int) -> Any:
    """An operand from outside the region, padded along `axis` to `size` (the padded part is
    never read): a broadcast is broadcast again, a splat made again, anything else padded."""
    shape = _shape(value)
    if len(shape) <= axis:  # a scalar operand (clamp's bounds)
        return value
    kind = shaped_like(value, _padded(shape, axis, size))
    op = producer(value)
    splat = dense_constant(op)
    if splat is not None and splat.is_splat:
        attribute = ir.DenseElementsAttr.get_splat(kind, splat.get_splat_value())
        return create("stablehlo.constant", kind, [], {"value": attribute})
    if op is not None and op.name == "stablehlo.broadcast_in_dim":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        source = op.operands[0]
        if axis in dims and _shape(source)[dims.index(axis)] != 1:
            source = _widened(source, dims.index(axis), size)
        return _broadcast(source, kind, dims)
    return _pad(value, axis, size - shape[axis])


def _scalar(like: Any, value: float) -> Any:
    """A rank-0 `stablehlo.constant` of `value` in `like`'s element type."""
    kind = ir.RankedTensorType.get([], ir.RankedTensorType(like.type).element_type)
    attribute = ir.DenseElementsAttr.get_splat(kind, ir.FloatAttr.get(kind.element_type, value))
    return create("stablehlo.constant", kind, [], {"value": attribute})


def _keys_mask(value: Any, axis: int, size: int, outside: Any) -> Any:
    """`value` with its padded keys (those from `size` on along `axis`) replaced by the
    scalar tensor `outside`.  The key indices are a constant row broadcast, which IREE fuses
    into the consumer (an iota is computed and stored; an i1 row fails to compile)."""
    shape = _shape(value)
    row = ir.DenseElementsAttr.get(np.arange(shape[axis], dtype=np.int32))
    indices = _broadcast(
        create("stablehlo.constant", row.type, [], {"value": row}), shaped_like(row, shape), [axis]
    )
    limit = ir.DenseElementsAttr.get_splat(
        indices.type, ir.IntegerAttr.get(ir.IntegerType.get_signless(32), size)
    )
    real = compare(
        "LT", indices, create("stablehlo.constant", indices.type, [], {"value": limit}), "SIGNED"
    )
    filler = _broadcast(outside, value.type, [])
    return create("stablehlo.select", value.type, [real, value, filler])


@dataclass(frozen=True)
class _Padding:
    """What the padded entries of a carried value hold: `value` (None: not known), or, when
    `poisoned`, NaN in some rows instead, but only in rows where a real entry is NaN too."""

    value: float | bool | None
    poisoned: bool = False


_UNKNOWN = _Padding(None)
_SAME_VALUE = ("stablehlo.reshape", "stablehlo.broadcast_in_dim", "stablehlo.convert")
# A constant converted to these types is rounded as numpy rounds it; to others it is not known.
_NUMPY_TYPES: dict[str, Any] = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
# Values kept when known: those every float type holds exactly.
_EXACT = (0.0, 1.0, math.inf, -math.inf)
# Ops that make an element NaN when an operand's element is NaN.
_NAN_PROPAGATING = {
    "stablehlo.abs": np.abs,
    "stablehlo.add": np.add,
    "stablehlo.divide": np.divide,
    "stablehlo.exponential": np.exp,
    "stablehlo.log": np.log,
    "stablehlo.maximum": np.maximum,
    "stablehlo.minimum": np.minimum,
    "stablehlo.multiply": np.multiply,
    "stablehlo.negate": np.negative,
    "stablehlo.sqrt": np.sqrt,
    "stablehlo.subtract": np.subtract,
    "stablehlo.tanh": np.tanh,
}
_LOGICAL = {"stablehlo.and": np.logical_and, "stablehlo.or": np.logical_or,
            "stablehlo.not": np.logical_not}  # fmt: skip
_COMPARISONS = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
                "GT": np.greater, "GE": np.greater_equal}  # fmt: skip
# A reduction whose padded entries hold its init value is exact; these also when poisoned.
_IDENTITY_REDUCTIONS = ("stablehlo.add", "stablehlo.maximum", "stablehlo.minimum",
                        "stablehlo.multiply", "stablehlo.and", "stablehlo.or")  # fmt: skip


def _splat(value: Any) -> float | bool | None:
    """The value of a splat `stablehlo.constant`, also through reshapes, broadcasts and
    converts when every type holds it exactly (None for anything else)."""
    op = producer(value)
    if op is not None and op.name in _SAME_VALUE:
        inner = _splat(op.operands[0])
        if inner is None or isinstance(inner, bool) or inner in _EXACT:
            return inner
        rounded = _NUMPY_TYPES.get(str(ir.RankedTensorType(value.type).element_type))
        return None if rounded is None else float(rounded(inner))
    attribute = dense_constant(op)
    if attribute is None or not attribute.is_splat:
        return None
    scalar = attribute.get_splat_value()
    return ir.BoolAttr(scalar).value if isinstance(scalar, ir.BoolAttr) else _number(scalar)


def _number(scalar: Any) -> float | bool | None:
    for kind in (ir.FloatAttr, ir.IntegerAttr):
        try:
            return cast("float | bool | None", kind(scalar).value)
        except ValueError:
            continue
    return None


def _known(value: Any) -> _Padding | None:
    """`value`'s splat as a padding, None when it is not one."""
    splat = _splat(value)
    return None if splat is None else _Padding(splat)


def _outside(value: Any, axis: int) -> _Padding | None:
    """What the padded entries of an outside operand hold after `_widened`, case for case
    (None when not known)."""
    if len(_shape(value)) <= axis:  # a scalar, used as it is
        return _known(value)
    op = producer(value)
    if op is not None and op.name == "stablehlo.constant":  # a splat made again, or padded
        return _known(value) or _Padding(0.0)
    if op is not None and op.name == "stablehlo.broadcast_in_dim":
        dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
        if axis in dims and _shape(op.operands[0])[dims.index(axis)] != 1:
            return _outside(op.operands[0], dims.index(axis))
        return _known(value)  # broadcast again: each row's own values
    return _Padding(0.0)


def _row_maximum_of(value: Any, region: _Region) -> Any:
    """The value whose maximum over the keys alone `value` broadcasts back along them, each
    row's maximum to the same row (reshapes that only add or drop unit dimensions, then a
    broadcast keeping the order of dimensions); None when it is not one."""
    op = producer(value)
    if op is None or op.name != "stablehlo.broadcast_in_dim":
        return None
    dims = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    if dims != sorted(set(dims)):
        return None
    op = producer(op.operands[0])
    while (
        op is not None
        and op.name == "stablehlo.reshape"
        and _unit_free(op.result) == _unit_free(op.operands[0])
    ):
        op = producer(op.operands[0])
    reductions = {reduce.operation for reduce in region.reductions}
    if op is None or op.operation not in reductions or combiner(op) != "stablehlo.maximum":
        return None
    reduced = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    return op.operands[0] if reduced == [region.axis[op.operands[0]]] else None


def _unit_free(value: Any) -> list[int]:
    return [extent for extent in _shape(value) if extent != 1]


def _evaluated(op: Any, paddings: list[_Padding]) -> _Padding:
    """Apply `op` to the paddings of its operands."""
    name = op.name
    values: list[Any] = [padding.value for padding in paddings]
    poisoned = any(padding.poisoned for padding in paddings)
    if None in values:
        return _UNKNOWN
    with np.errstate(all="ignore"):
        if name in _NAN_PROPAGATING:
            value = float(_NAN_PROPAGATING[name](*np.array(values, dtype=np.float64)))
            return _Padding(value, poisoned) if value in _EXACT else _UNKNOWN
        if poisoned:
            return _UNKNOWN
        if name in _LOGICAL:
            return _Padding(bool(_LOGICAL[name](*values)))
        if name == "stablehlo.select":
            return _Padding(values[1] if values[0] else values[2])
        if name == "stablehlo.compare" and "TOTALORDER" not in str(
            op.attributes["compare_type"] if "compare_type" in op.attributes else ""
        ):
            direction = str(op.attributes["comparison_direction"]).split()[-1].rstrip(">")
            return _Padding(bool(_COMPARISONS[direction](*values)))
    return _UNKNOWN


def _padding_of(op: Any, region: _Region, paddings: dict[Any, _Padding]) -> _Padding:
    """What the padded entries of carried `op`'s result hold."""
    if op.name in ("stablehlo.transpose", "stablehlo.reshape", "stablehlo.broadcast_in_dim"):
        return paddings[op.operands[0]]
    if op.name not in ELEMENTWISE:
        return _UNKNOWN
    axis = region.axis[op.result]
    operands = list(op.operands)
    found = [paddings.get(value) or _outside(value, axis) for value in operands]
    first = found[0]
    if op.name == "stablehlo.subtract" and found[1] is None and first is not None:
        # x minus its maximum over the keys: -inf - m is -inf unless m is -inf (every real
        # x of the row is -inf, and x - m NaN) or NaN (a real x is NaN).
        maximum = _row_maximum_of(operands[1], region)
        if maximum is not None and maximum == operands[0] and first.value == -math.inf:
            return _Padding(-math.inf, poisoned=True)
    known = [padding for padding in found if padding is not None]
    return _evaluated(op, known) if len(known) == len(found) else _UNKNOWN


def _exact_reduction(reduce: Any, padding: _Padding) -> bool:
    """Whether the padded entries leave `reduce`'s result as it was."""
    body, init = combiner(reduce), _splat(reduce.operands[1])
    if body not in _IDENTITY_REDUCTIONS or init is None or padding.value != init:
        return False
    return not padding.poisoned or body not in ("stablehlo.and", "stablehlo.or")


def _pad_region(dot: Any, axis: int, region: _Region, multiple: int) -> None:
    """Rewrite `region` with its keys padded to a multiple of `multiple`."""
    size = region.size
    padded_size = -(-size // multiple) * multiple
    new: dict[Any, Any] = {}
    side, dimension = _free_dimensions(dot)[axis - len(_numbers(dot).lhs_batching_dimensions)]
    with ir.InsertionPoint(dot), dot.location:
        operands = list(dot.operands)
        operands[side] = _pad(operands[side], dimension, padded_size - size)
        result = shaped_like(dot.result, _padded(_shape(dot.result), axis, padded_size))
        attributes = {name: dot.attributes[name] for name in dot.attributes}
        scores = create(dot.name, result, operands, attributes)
        new[dot.result] = _keys_mask(scores, axis, size, _scalar(scores, -math.inf))
    paddings = {dot.result: _Padding(-math.inf)}
    block = dot.operation.block
    carried = [op for op in block.operations if op.operation in region.ops]
    for op in carried:
        _rewrite_carried(op, region, new, padded_size)
        paddings[op.result] = _padding_of(op, region, paddings)
    for reduce in region.reductions:
        operand = reduce.operands[0]
        reduce.operands[0] = new[operand]
        if not _exact_reduction(reduce, paddings[operand]):
            with ir.InsertionPoint(reduce), reduce.location:
                reduce.operands[0] = _keys_mask(
                    new[operand], region.axis[operand], size, reduce.operands[1]
                )
    for user, index in region.contractions:
        zeros_there = paddings[user.operands[index]].value == 0
        _contract_padded(user, index, region, new, padded_size, zeros_there)
    _slice_exits(region, new)
    _erase(dot, carried, region)


def _slice_exits(region: _Region, new: dict[Any, Any]) -> None:
    """Give each use the keys do not pass through the real keys' slice of the padded value."""
    for user, index, value in region.exits:
        with ir.InsertionPoint(user), user.location:
            shape = _shape(value)
            attributes = {
                "start_indices": ir.DenseI64ArrayAttr.get([0] * len(shape)),
                "limit_indices": ir.DenseI64ArrayAttr.get(shape),
                "strides": ir.DenseI64ArrayAttr.get([1] * len(shape)),
            }
            user.operands[index] = create("stablehlo.slice", value.type, [new[value]], attributes)


def _erase(dot: Any, carried: list[Any], region: _Region) -> None:
    """Erase the unpadded ops, and the broadcasts and constants only they used."""
    feeding = {
        source.operation: source
        for op in carried
        for source in map(producer, op.operands)
        if source is not None and source.name in _DISPOSABLE and source.operation not in region.ops
    }.values()
    for op in reversed([dot, *carried]):
        op.operation.erase()
    for op in feeding:
        if not list(op.result.uses):
            op.operation.erase()


def _rewrite_carried(op: Any, region: _Region, new: dict[Any, Any], padded_size: int) -> None:
    """A copy of `op` on the padded operands, its result padded too."""
    axis = region.axis[op.result]
    with ir.InsertionPoint(op), op.location:
        operands = [
            new[operand]
            if operand in new
            else _widened(operand, axis, padded_size)
            if op.name in ELEMENTWISE
            else operand
            for operand in op.operands
        ]
        copy = op.operation.clone()
        for index, operand in enumerate(operands):
            copy.operands[index] = operand
        copy.results[0].set_type(
            shaped_like(op.result, _padded(_shape(op.result), axis, padded_size))
        )
    new[op.result] = copy.results[0]


def _contract_padded(
    user: Any, index: int, region: _Region, new: dict[Any, Any], padded_size: int, zeros_there: bool
) -> None:
    """Contract the padded keys: zeros in place of them on the carried side (unless they are
    `zeros_there` already), zero rows added to the other operand."""
    value = user.operands[index]
    axis = region.axis[value]
    numbers = _numbers(user)
    contracting = (numbers.lhs_contracting_dimensions, numbers.rhs_contracting_dimensions)
    other = contracting[1 - index][list(contracting[index]).index(axis)]
    with ir.InsertionPoint(user), user.location:
        padded = new[value]
        if not zeros_there:
            padded = _keys_mask(padded, axis, region.size, _scalar(padded, 0.0))
        user.operands[index] = padded
        partner = user.operands[1 - index]
        user.operands[1 - index] = _pad(partner, other, padded_size - region.size)


def _candidate(dot: Any, multiple: int) -> tuple[int, _Region] | None:
    """The first free dimension of `dot`'s result worth padding, with its region."""
    if not all(_carries(value) for value in (*dot.operands, dot.result)):
        return None
    shape = _shape(dot.result)
    batch = len(_numbers(dot).lhs_batching_dimensions)
    for axis in range(batch, len(shape)):
        if shape[axis] % multiple == 0 or shape[axis] < 2 * multiple:
            continue
        region = _region(dot, axis)
        if region is not None and region.reductions and region.contractions:
            return axis, region
    return None


@register_pass("shlo-pad-attention-keys", options=PadAttentionKeysOptions)
def pad_attention_keys(module: Any, options: PadAttentionKeysOptions) -> None:
    """Pad attention's keys to a multiple of the vector width, keeping them out of results."""
    with module.context:
        for dot in ops_in(module, "stablehlo.dot_general"):
            found = _candidate(dot, options.multiple)
            if found is not None:
                _pad_region(dot, *found, options.multiple)
