"""`shlo-narrow-sort-indices`: sort index tensors as i32, widened to i64 after the slice.

torch.topk/argsort export as `stablehlo.sort` of (values, i64 iota) followed by slices; IREE
3.13 rewrites that into `chlo.top_k`, whose indices must be i32, and iree-compile then fails
("'chlo.top_k' op inferred type(s) ... are incompatible").  This pass sorts an i32 iota instead
and converts each slice of the indices back to i64, so the program computes the same values.
It only rewrites sorts whose index operand is an i64 iota with fewer than 2^31 elements.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_I32_LIMIT = 2**31


def _i64_iota_operand(sort: Any) -> int | None:
    """The index of the sort operand that is an i64 iota small enough for i32, if any."""
    for index, operand in enumerate(sort.operands):
        producer = operand.owner
        if not isinstance(producer, ir.Operation) and hasattr(producer, "operation"):
            producer = producer.operation
        shaped = operand.type
        if (
            getattr(producer, "name", None) == "stablehlo.iota"
            and isinstance(shaped, ir.ShapedType)
            and str(shaped.element_type) == "i64"
            and shaped.has_static_shape
            and shaped.rank
            and max(shaped.shape) < _I32_LIMIT
        ):
            return index
    return None


def _i32_tensor(shape: list[int]) -> Any:
    return ir.RankedTensorType.get(shape, ir.IntegerType.get_signless(32))


def _narrow(value: Any) -> None:
    value.set_type(_i32_tensor(value.type.shape))


def _rewrite(sort: Any, index: int) -> None:
    iota_result = sort.operands[index]
    if len(list(iota_result.uses)) != 1:
        return
    result = sort.results[index]
    users = [use.owner for use in result.uses]
    if not all(user.name == "stablehlo.slice" for user in users):
        return
    _narrow(iota_result)
    _narrow(result)
    comparator = sort.regions[0].blocks[0]
    for argument in (comparator.arguments[2 * index], comparator.arguments[2 * index + 1]):
        argument.set_type(_i32_tensor([]))
    for user in users:
        wide = user.results[0].type
        _narrow(user.results[0])
        with ir.InsertionPoint.after(user), user.location:
            convert = ir.Operation.create(
                "stablehlo.convert", results=[wide], operands=[user.results[0]]
            )
        user.results[0].replace_all_uses_except(convert.results[0], convert)


@register_pass("shlo-narrow-sort-indices")
def narrow_sort_indices(module: Any, options: None) -> None:
    """Sort i64 iota indices as i32 so IREE's top-k lowering accepts them."""
    with module.context, ir.Location.unknown():
        for sort in ops_in(module, "stablehlo.sort"):
            index = _i64_iota_operand(sort)
            if index is not None:
                _rewrite(sort, index)
