"""`shlo-boolean-add-as-or`: a boolean `add` written as the `or` StableHLO defines it to be.

StableHLO's `add` of booleans is logical OR; IREE 3.13 adds i1 values as integers modulo 2,
so `true + true` came back false, in elementwise adds and in the bodies of reductions and
scatters alike (PyTorch's `add`, `sum` into bool, `index_add` of bool tensors; eager ORs).
`or` is the same function on booleans, and IREE computes it right.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _as_or(op: Any) -> None:
    kind = op.result.type
    element = kind.element_type if isinstance(kind, ir.ShapedType) else kind
    if not (isinstance(element, ir.IntegerType) and element.width == 1):
        return
    either = ir.Operation.create("stablehlo.or", results=[kind], operands=list(op.operands))
    op.result.replace_all_uses_with(either.result)
    op.erase()


@register_pass("shlo-boolean-add-as-or")
def boolean_add_as_or(module: Any, options: None) -> None:
    """Write each `add` of booleans as `or`."""
    rewrite_each(module, "stablehlo.add", _as_or)
