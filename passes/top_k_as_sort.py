"""`shlo-top-k-as-sort`: `chlo.top_k` as the stable sort and slices that upstream lowers it to.

`chlo.top_k` returns the k largest elements of the last dimension, equal elements in index
order (upstream's `chlo-legalize-to-stablehlo` writes it as a stable descending sort of the
values beside an iota, then slices).  IREE 3.13 lowers `chlo.top_k` to a kernel of its own
that puts equal elements in another order, so `jax.lax.top_k` gave other indices than XLA
whenever two values tied, with no error.  This pass writes each `chlo.top_k` as upstream
does (floats compared in total order, integers by their signedness), and `shlo-stable-sort`
then keeps the index order on IREE.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, leading, ops_in, stable_sort_of
from shlo.ir.elementwise import compare
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _compare_type(element: Any) -> str:
    if isinstance(element, ir.FloatType):
        return "TOTALORDER"
    if isinstance(element, ir.IntegerType) and element.is_unsigned:
        return "UNSIGNED"
    return "SIGNED"


def _descending_sort(values: Any, positions: Any, dimension: int) -> Any:
    """`stablehlo.sort` of (values, positions) along `dimension`, largest first, stable."""
    sort, block = stable_sort_of([values, positions], dimension)
    element = ir.RankedTensorType(values.type).element_type
    with ir.InsertionPoint(block):
        greater = compare("GT", block.arguments[0], block.arguments[1], _compare_type(element))
        ir.Operation.create("stablehlo.return", operands=[greater])
    return sort


def _rewrite(top_k: Any) -> None:
    shaped = ir.RankedTensorType(top_k.operands[0].type)
    if not shaped.has_static_shape:
        return
    dimension = shaped.rank - 1
    count = ir.RankedTensorType(top_k.results[0].type).shape[dimension]
    index = ir.RankedTensorType(top_k.results[1].type).element_type
    with ir.InsertionPoint(top_k), top_k.location:
        iota_type = ir.RankedTensorType.get(shaped.shape, index)
        along = {"iota_dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension)}
        iota = create("stablehlo.iota", iota_type, [], along)
        sort = _descending_sort(top_k.operands[0], iota, dimension)
        shape = [*shaped.shape[:dimension], count]
        values = leading(sort.results[0], shape)
        indices = leading(sort.results[1], shape)
    top_k.results[0].replace_all_uses_with(values)
    top_k.results[1].replace_all_uses_with(indices)
    top_k.erase()


@register_pass("shlo-top-k-as-sort")
def top_k_as_sort(module: Any, options: None) -> None:
    """Write every static-shaped `chlo.top_k` as a stable descending sort and slices."""
    with module.context, ir.Location.unknown():
        for top_k in ops_in(module, "chlo.top_k"):
            _rewrite(top_k)
