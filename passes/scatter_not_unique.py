"""`shlo-scatter-not-unique`: every scatter's `unique_indices` promise set to false.

`unique_indices = true` only lets a compiler update the operand without ordering the updates;
false computes the same values.  IREE 3.13's Vulkan target, given the promise, applied one
update several times (a scatter-add of one element at a constant index added its update eight
times, with no error; the same scatter without the promise is exact), so on Vulkan the promise
is dropped.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


@register_pass("shlo-scatter-not-unique")
def scatter_not_unique(module: Any, options: None) -> None:
    """Set `unique_indices` to false on every `stablehlo.scatter`."""
    with module.context:
        for op in ops_in(module, "stablehlo.scatter"):
            op.attributes["unique_indices"] = ir.BoolAttr.get(False)
