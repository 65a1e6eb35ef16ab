"""`shlo-stable-sort`: a sort marked `is_stable` keeps equal elements in their order on IREE.

StableHLO's `is_stable` promises that elements the comparator finds equivalent (neither
`less(a, b)` nor `less(b, a)`) keep their order.  IREE 3.13's CPU sort ignores the flag and
reorders equal keys, so stable sorts from every producer (JAX's `lax.sort(is_stable=True)`,
`jnp.argsort`, PyTorch's `sort` and `argsort`) came back in another order with no error.
This pass writes the promise into the comparator itself: equivalent elements are ordered by
their position along the sorted dimension, read from an operand that numbers them (an iota
along that dimension) or, where the sort has none, from an iota added as a last operand whose
sorted copy is dropped.  The result is the same on any backend; `is_stable` stays set.
IREE also rewrites a sort whose results are sliced from the front into its own top-k kernel,
which reads only the comparator's first compare and so drops the order of equal elements
again: the results of every sort this pass orders go through an `optimization_barrier`.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, ops_in, producer, stable_sort_of
from shlo.ir.elementwise import compare, logical
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_I32_LIMIT = 2**31


def _dimension(sort: Any) -> int:
    return int(ir.IntegerAttr(sort.attributes["dimension"]).value)


def _position_operand(sort: Any) -> int | None:
    """The operand that numbers the elements along the sorted dimension, if there is one."""
    for index, operand in enumerate(sort.operands):
        made = producer(operand)
        if made is not None and made.name == "stablehlo.iota":
            if ir.IntegerAttr(made.attributes["iota_dimension"]).value == _dimension(sort):
                return index
    return None


def _copy_ops(ops: list[Any], mapping: dict[Any, Any], before: Any) -> None:
    """Clone `ops` before `before`, reading through `mapping` and adding their results to it."""
    for op in ops:
        copy = op.clone(ir.InsertionPoint(before))
        for i, operand in enumerate(copy.operands):
            copy.operands[i] = mapping.get(operand, operand)
        for old, new in zip(op.results, copy.results, strict=True):
            mapping[old] = new


def _ordered_by_position(block: Any, position: int) -> None:
    """Make the comparator of `block` order equivalent elements by operand `position`: its
    result becomes `less(a, b) or (not less(b, a) and pa < pb)`."""
    arguments = list(block.arguments)
    *ops, terminator = block.operations
    if len(terminator.operands) != 1:
        return
    before = terminator.operands[0]
    with ir.InsertionPoint(terminator), terminator.location:
        swapped = {arg: arguments[i ^ 1] for i, arg in enumerate(arguments)}
        _copy_ops(ops, swapped, terminator)
        earlier = compare("LT", arguments[2 * position], arguments[2 * position + 1], "SIGNED")
        tie = logical("and", logical("not", swapped[before]), earlier)
        terminator.operands[0] = logical("or", before, tie)


def _with_positions(sort: Any) -> Any:
    """A copy of `sort` with an iota along its dimension as a last operand, its comparator
    reading the old arguments unchanged; the old sort's results are replaced and it is erased."""
    shape = list(ir.RankedTensorType(sort.operands[0].type).shape)
    width = 32 if shape[_dimension(sort)] < _I32_LIMIT else 64
    element = ir.IntegerType.get_signless(width)
    with ir.InsertionPoint(sort), sort.location:
        along = {
            "iota_dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), _dimension(sort))
        }
        iota = create("stablehlo.iota", ir.RankedTensorType.get(shape, element), [], along)
        wider, block = stable_sort_of([*sort.operands, iota], _dimension(sort))
    old_block = sort.regions[0].blocks[0]
    mapping = dict(zip(old_block.arguments, block.arguments, strict=False))
    *ops, terminator = old_block.operations
    returned = terminator.clone(ir.InsertionPoint(block))
    _copy_ops(ops, mapping, returned)
    for i, operand in enumerate(returned.operands):
        returned.operands[i] = mapping.get(operand, operand)
    for old, new in zip(sort.results, wider.results, strict=False):
        old.replace_all_uses_with(new)
    sort.erase()
    return wider


def _fenced(sort: Any) -> None:
    """Read `sort`'s results through an `optimization_barrier`, so no later rewrite sees
    the sort and its slices together."""
    results = list(sort.results)
    with ir.InsertionPoint.after(sort), sort.location:
        barrier = ir.Operation.create(
            "stablehlo.optimization_barrier", results=[r.type for r in results], operands=results
        )
    for old, new in zip(results, barrier.results, strict=True):
        old.replace_all_uses_except(new, barrier)


@register_pass("shlo-stable-sort")
def stable_sort(module: Any, options: None) -> None:
    """Order equivalent elements of every `is_stable` sort by their position."""
    with module.context, ir.Location.unknown():
        for sort in ops_in(module, "stablehlo.sort"):
            if (
                "is_stable" not in sort.attributes
                or not ir.BoolAttr(sort.attributes["is_stable"]).value
            ):
                continue
            position = _position_operand(sort)
            if position is None:
                sort = _with_positions(sort)
                position = len(sort.operands) - 1
            _ordered_by_position(sort.regions[0].blocks[0], position)
            _fenced(sort)
