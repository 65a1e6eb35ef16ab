"""`shlo-own-sort-operands`: every sort sorts tensors of its own, made at run time.

IREE 3.13 sorts in place.  When two `stablehlo.sort` ops read one iota (the same value, or
two equal iotas, which its CSE makes one value) both sorts write that one buffer; when the
iota is offset (`iota + c`), IREE hoists it into a constant and, on Vulkan, sorts into the
constant itself.  `torch.sort(x)` beside `torch.sort(x, descending=True)`, or two argsorts
of one shape, came back with wrong indices and no error, at the first call or from the
second on.  An `optimization_barrier` does not help (IREE merges equal barriers, and sorts
into a hoisted constant behind one).  So each sort that shares an iota gets
`max(iota + c, min(iota + c, bits))`, where `bits` is its own keys read as integers: equal
to `iota + c`, computed by a dispatch of its own at every call, and with a different `c`
for every sort of one iota, so no two are the same value.  The offset keeps the order the
comparator sees and is subtracted from the sorted indices.

A sort of a slice of a function argument (`stablehlo.slice` or `dynamic_slice`; `torch.sort`,
`kthvalue` or `median` of `x[:, :3]`) fails to compile: IREE fuses the slice into the sort's
dispatch and sorts in the argument's read-only buffer ("write affecting operations on global
resources are restricted to workgroup distributed contexts").  Each sliced operand is put
behind an `optimization_barrier`, which keeps the slice a dispatch of its own.
"""

from __future__ import annotations

from typing import Any, cast

from shlo.ir.edit import create, ops_in, producer
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass


def _iota_text(value: Any) -> str | None:
    """The text of the integer iota that defines `value`, which stands for every equal copy."""
    op = producer(value)
    if op is None or op.name != "stablehlo.iota":
        return None
    if not isinstance(ir.RankedTensorType(value.type).element_type, ir.IntegerType):
        return None
    return str(op)


def _offset(value: Any, amount: int) -> Any:
    """`value` plus `amount` in every element, at the current insertion point."""
    tensor = ir.RankedTensorType(value.type)
    scalar = ir.IntegerAttr.get(tensor.element_type, amount)
    splat = ir.DenseElementsAttr.get_splat(tensor, scalar)
    constant = create("stablehlo.constant", tensor, [], {"value": splat})
    return create("stablehlo.add", tensor, [value, constant])


def _as_integers(keys: Any, like: Any) -> Any | None:
    """`keys` read as integers of `like`'s type (a float's bits, an integer converted), or
    None for keys of another kind."""
    element = ir.RankedTensorType(keys.type).element_type
    if isinstance(element, ir.FloatType):
        bits = ir.IntegerType.get_signless(element.width)
        shape = ir.RankedTensorType(keys.type).shape
        keys = create("stablehlo.bitcast_convert", ir.RankedTensorType.get(shape, bits), [keys])
    elif not isinstance(element, ir.IntegerType):
        return None
    return keys if keys.type == like.type else create("stablehlo.convert", like.type, [keys])


def _made_at_run_time(iota: Any, keys: Any) -> Any:
    """`iota` again, as `max(iota, min(iota, keys))`, which no compiler folds to a constant."""
    bits = _as_integers(keys, iota)
    if bits is None:
        return iota
    low = create("stablehlo.minimum", iota.type, [iota, bits])
    return create("stablehlo.maximum", iota.type, [iota, low])


def _fits(value: Any, offset: int) -> bool:
    tensor = ir.RankedTensorType(value.type)
    width = ir.IntegerType(tensor.element_type).width
    return cast(bool, max(tensor.shape, default=0) + offset < 2 ** (width - 1))


def _give_own_iota(sort: Any, index: int, offset: int) -> None:
    """Sort `iota + offset`, made at run time, in place of the iota, and hand the users
    `result - offset`."""
    operand, result = sort.operands[index], sort.results[index]
    with ir.InsertionPoint(sort), sort.location:
        shifted = _offset(operand, offset) if offset else operand
        sort.operands[index] = _made_at_run_time(shifted, sort.operands[0])
    if not offset:
        return
    users = [(use.owner, use.operand_number) for use in result.uses]
    with ir.InsertionPoint.after(sort), sort.location:
        restored = _offset(result, -offset)
    for owner, number in users:
        owner.operands[number] = restored


_SLICES = frozenset({"stablehlo.slice", "stablehlo.dynamic_slice"})


def _slices_apart(sort: Any) -> None:
    """Put each operand of `sort` that a slice makes behind an `optimization_barrier`."""
    for index, operand in enumerate(sort.operands):
        made_by = producer(operand)
        if made_by is None or made_by.name not in _SLICES:
            continue
        with ir.InsertionPoint(sort), sort.location:
            sort.operands[index] = create("stablehlo.optimization_barrier", operand.type, [operand])


@register_pass("shlo-own-sort-operands")
def own_sort_operands(module: Any, options: None) -> None:
    """Give each sort that shares an iota with another sort an index tensor of its own, and
    each sliced operand a dispatch of its own."""
    with module.context:
        for sort in ops_in(module, "stablehlo.sort"):
            _slices_apart(sort)
        readers: dict[str, list[tuple[Any, int]]] = {}  # iota text -> (sort, operand index)
        for sort in ops_in(module, "stablehlo.sort"):
            for index, operand in enumerate(sort.operands):
                text = _iota_text(operand)
                if text is not None:
                    readers.setdefault(text, []).append((sort, index))
        for shared in readers.values():
            if len(shared) < 2:
                continue
            for order, (sort, index) in enumerate(shared):
                dimension = ir.IntegerAttr(sort.attributes["dimension"]).value
                offset = order * ir.RankedTensorType(sort.operands[0].type).shape[dimension]
                if not _fits(sort.operands[index], offset):
                    raise PassFailure("too many sorts of one iota for its integer type", sort)
                _give_own_iota(sort, index, offset)
