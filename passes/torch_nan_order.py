"""`shlo-torch-nan-order`: float comparisons in sorts and reductions order NaN as PyTorch does.

PyTorch sorts NaN after every other value (`sort`, `argsort`, `msort`, `topk`), and its
reductions that pick an element (`max`/`min` along a dimension, `argmax`, `argmin`, max
pooling with indices) pick NaN where there is one.  torch-mlir writes them as `stablehlo.sort`,
`stablehlo.reduce` and `stablehlo.reduce_window` whose bodies compare with IEEE `compare`, for
which every comparison with NaN is false: NaN stayed where it was in a sort and lost every
reduction.  StableHLO defines
those programs that way, so this is a rule of the PyTorch frontend, not of StableHLO.

Each FLOAT `compare` in a sort comparator or a reduction body is rewritten:
- sort: NaN is the largest value (`a < b` also when only `b` is NaN, `a > b` also when only
  `a` is), and the sort is marked stable, as eager's is, so equal keys and NaNs keep their
  order (`shlo-stable-sort` keeps that promise on IREE);
- reduce and reduce_window: NaN wins (`a > b`, `a >= b`, `a < b`, `a <= b` also hold when
  `a` is NaN and `b` is not; `>=`/`<=` also when both are) and two NaNs are equal, so index
  ties go to the first
  (ATen's pooling kernels take the last NaN of a window: a window with two NaNs gets another
  index than eager, its value is NaN as eager's).
Compares of other types (integers, TOTALORDER) and outside those bodies are left as they are.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.elementwise import compare, logical
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _direction(op: Any) -> str:
    return str(op.attributes["comparison_direction"]).split()[-1].rstrip(">")


def _float_compare(op: Any) -> bool:
    kind = op.attributes["compare_type"] if "compare_type" in op.attributes else None
    element = ir.RankedTensorType(op.operands[0].type).element_type
    return isinstance(element, ir.FloatType) and (kind is None or "FLOAT" in str(kind))


# (direction, NaN wins) -> which NaN case the IEEE compare misses and must also hold:
# "a" (a is NaN), "a only" (a is NaN, b is not), "b", "b only", "both".
_MISSED = {
    ("LT", False): "b only", ("LE", False): "b", ("GT", False): "a only", ("GE", False): "a",
    ("LT", True): "a only", ("LE", True): "a", ("GT", True): "a only", ("GE", True): "a",
    ("EQ", False): "both", ("EQ", True): "both",
}  # fmt: skip


def _nan_aware(op: Any, nan_wins: bool) -> None:
    """Replace `op` by its comparison with NaN ordered (see the module docstring)."""
    a, b = op.operands
    missed = _MISSED.get((_direction(op), nan_wins))
    if missed is None:
        return  # NE: NaN != anything is already true
    with ir.InsertionPoint(op), op.location:
        first, second = (b, a) if missed.startswith("b ") or missed == "b" else (a, b)
        extra = compare("NE", first, first)
        if missed.endswith("only"):
            extra = logical("and", extra, compare("EQ", second, second))
        elif missed == "both":
            extra = logical("and", extra, compare("NE", second, second))
        result = logical("or", compare(_direction(op), a, b), extra)
    op.results[0].replace_all_uses_with(result)
    op.erase()


@register_pass("shlo-torch-nan-order")
def torch_nan_order(module: Any, options: None) -> None:
    """Order NaN as PyTorch does in sorts (largest, stable) and reductions (NaN wins)."""
    with module.context:
        for sort in ops_in(module, "stablehlo.sort"):
            sort.attributes["is_stable"] = ir.BoolAttr.get(True)
            for op in ops_in(sort, "stablehlo.compare"):
                if _float_compare(op):
                    _nan_aware(op, nan_wins=False)
        windows = ops_in(module, "stablehlo.reduce_window")
        for reduce in ops_in(module, "stablehlo.reduce") + windows:
            for op in ops_in(reduce, "stablehlo.compare"):
                if _float_compare(op):
                    _nan_aware(op, nan_wins=True)
