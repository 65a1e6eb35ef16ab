"""`shlo-empty-scatters`: a scatter of no updates is its operands.

A scatter whose updates have no elements (`index_put`, `scatter_add` or `put` with no
indices, a histogram of an empty tensor) changes nothing.  iree-compile 3.13 dies on it with
SIGFPE (a division by the update count while tiling).  This pass replaces each such scatter
by its inputs.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import rewrite_each, scatter_inputs
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _as_inputs(scatter: Any) -> None:
    count = scatter_inputs(scatter)
    updates = [ir.RankedTensorType(v.type) for v in scatter.operands[count + 1 :]]
    if not all(u.has_static_shape and 0 in u.shape for u in updates):
        return
    for result, operand in zip(scatter.results, scatter.operands[:count], strict=True):
        result.replace_all_uses_with(operand)
    scatter.erase()


@register_pass("shlo-empty-scatters")
def empty_scatters(module: Any, options: None) -> None:
    """Replace each scatter of no updates by its inputs."""
    rewrite_each(module, "stablehlo.scatter", _as_inputs)
