"""`shlo-jax-scatter-dims`: a scatter's indexed dimensions moved to the front of its operand.

`x.at[:, i, j].set(u)` exports as a `stablehlo.scatter` whose indexed dimensions
(`scatter_dims_to_operand_dims`) are not the operand's leading ones.  IREE 3.13's
`ScatterMaterializeInsertedDim` then turns those of them after the first unindexed dimension
into window dimensions, and iree-compile fails on the result ("'iree_linalg_ext.scatter' op
expected indices to be equal to batch rank or batch rank + 1") whenever two or more dimensions
are indexed.  IREE lowers the form whose indexed dimensions lead, in index-vector order: this
pass transposes each operand into that form and each result back, which computes the same
values.  Only scatters whose indexed dimensions are all inserted (point indices, as JAX's
`.at[...]` writes them) and that have no batching dimensions are rewritten.
"""

from __future__ import annotations

import re
from typing import Any

from shlo.ir.edit import ops_in, scatter_inputs, transpose
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_FIELD = re.compile(r"(\w+) = (\[[\d, ]*\]|\d+)")


def _numbers(scatter: Any) -> dict[str, Any]:
    """The scatter's dimension numbers by field (lists, and `index_vector_dim`, an int)."""
    text = str(scatter.attributes["scatter_dimension_numbers"])
    return {name: _value(value) for name, value in _FIELD.findall(text)}


def _value(text: str) -> Any:
    """`[1, 2]` as [1, 2], `3` as 3."""
    if text.startswith("["):
        return [int(x) for x in text.strip("[]").split(",") if x.strip()]
    return int(text)


def _spelled(numbers: dict[str, Any]) -> Any:
    """The `#stablehlo.scatter<...>` attribute of `numbers`."""
    fields = ", ".join(
        f"{name} = [{', '.join(map(str, value))}]"
        if isinstance(value, list)
        else f"{name} = {value}"
        for name, value in numbers.items()
    )
    return ir.Attribute.parse(f"#stablehlo.scatter<{fields}>")


def _leading_order(numbers: dict[str, Any], rank: int) -> list[int] | None:
    """The operand permutation that puts the indexed dimensions first, or None when the
    scatter is left as it is."""
    indexed: list[int] = numbers.get("scatter_dims_to_operand_dims", [])
    inserted = numbers.get("inserted_window_dims", [])
    if numbers.get("input_batching_dims") or not set(indexed) <= set(inserted):
        return None
    if indexed == list(range(len(indexed))):
        return None
    return indexed + [d for d in range(rank) if d not in indexed]


def _lead_indexed_dims(scatter: Any) -> None:
    numbers = _numbers(scatter)
    count = scatter_inputs(scatter)
    order = _leading_order(numbers, ir.RankedTensorType(scatter.operands[0].type).rank)
    if order is None:
        return
    with ir.InsertionPoint(scatter), scatter.location:
        for index in range(count):
            scatter.operands[index] = transpose(scatter.operands[index], order)
    numbers["scatter_dims_to_operand_dims"] = list(
        range(len(numbers["scatter_dims_to_operand_dims"]))
    )
    numbers["inserted_window_dims"] = sorted(
        order.index(d) for d in numbers["inserted_window_dims"]
    )
    scatter.attributes["scatter_dimension_numbers"] = _spelled(numbers)
    back = [order.index(d) for d in range(len(order))]
    for result in scatter.results:
        result.set_type(scatter.operands[result.result_number].type)
        with ir.InsertionPoint.after(scatter), scatter.location:
            restored = transpose(result, back)
        result.replace_all_uses_except(restored, restored.owner.operation)


@register_pass("shlo-jax-scatter-dims")
def jax_scatter_dims(module: Any, options: None) -> None:
    """Transpose scatters so that their indexed dimensions lead, the form IREE lowers."""
    with module.context:
        for scatter in ops_in(module, "stablehlo.scatter"):
            _lead_indexed_dims(scatter)
