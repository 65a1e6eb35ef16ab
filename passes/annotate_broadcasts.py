"""`shlo-annotate-broadcasts`: mark the dimensions a `dynamic_broadcast_in_dim` cannot expand.

IREE 3.13 lowers `stablehlo.dynamic_broadcast_in_dim` only when it knows which operand dims
keep their size (`known_nonexpanding_dimensions`); torch-mlir's dynamic-shape modules never say,
so every dynamic broadcast fails to legalize.  A dim cannot expand when its static size is not 1
(broadcasting only stretches size-1 dims), or when the target shape's entry for it is the
operand's own `get_dimension_size` of that dim (torch-mlir's shape computations, once
`shape-legalize-to-stablehlo` has turned them into StableHLO), possibly as max(size, 1).  Only
such proven dims are marked.
"""

from __future__ import annotations

from typing import Any, cast

from shlo.ir.edit import dense_constant, ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


def _producer(value: Any) -> Any | None:
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation


def _through_reshapes(value: Any) -> Any | None:
    producer = _producer(value)
    while producer is not None and producer.name in ("stablehlo.reshape", "stablehlo.convert"):
        producer = _producer(producer.operands[0])
    return producer


def _entry(shape: Any, position: int) -> Any:
    """How entry `position` of a shape operand is computed: an op (through reshapes), or
    ("max", entry, entry) for torch-mlir's broadcast shapes, or None when it cannot be told."""
    producer = _producer(shape)
    if producer is None:
        return None
    if producer.name == "stablehlo.maximum":
        return (
            "max",
            _entry(producer.operands[0], position),
            _entry(producer.operands[1], position),
        )
    if producer.name != "stablehlo.concatenate":
        return None
    pieces = list(producer.operands)
    if position >= len(pieces) or any(ir.RankedTensorType(p.type).shape != [1] for p in pieces):
        return None
    return _through_reshapes(pieces[position])


def _is_one(entry: Any) -> bool:
    value = None if isinstance(entry, tuple) else dense_constant(entry)
    return (
        value is not None
        and value.is_splat
        and str(value.get_splat_value()).split(":")[0].strip() == "1"
    )


def _own_size(entry: Any, operand: Any, index: int) -> bool:
    """Whether the entry is the operand's own size of dim `index` (max(size, 1) counts: a size
    0 dim cannot be broadcast to 1)."""
    if isinstance(entry, tuple):
        _, left, right = entry
        return (_own_size(left, operand, index) and _is_one(right)) or (
            _own_size(right, operand, index) and _is_one(left)
        )
    return (
        entry is not None
        and entry.name == "stablehlo.get_dimension_size"
        and entry.operands[0] == operand
        and _integer(entry.attributes["dimension"]) == index
    )


def _integer(attribute: Any) -> int:
    return cast(int, ir.IntegerAttr(attribute).value)


def _nonexpanding(op: Any) -> list[int]:
    operand, shape = op.operands[0], op.operands[1]
    operand_type = ir.RankedTensorType(operand.type)
    mapping = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_dimensions"]))
    proven = []
    for index, target in enumerate(mapping):
        if operand_type.is_dynamic_dim(index):
            if _own_size(_entry(shape, target), operand, index):
                proven.append(index)
        elif operand_type.shape[index] != 1:
            proven.append(index)
    return proven


@register_pass("shlo-annotate-broadcasts")
def annotate_broadcasts(module: Any, options: None) -> None:
    """Mark the operand dims each dynamic_broadcast_in_dim provably does not expand."""
    with module.context:
        for op in ops_in(module, "stablehlo.dynamic_broadcast_in_dim"):
            if "known_nonexpanding_dimensions" in op.attributes:
                continue
            if proven := _nonexpanding(op):
                op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(proven)
