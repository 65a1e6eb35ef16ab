"""Rewrites of torch backend IR ops as StableHLO, before torch-mlir's conversion runs.

An op torch-mlir cannot lower (or lowers wrongly) is replaced by StableHLO ops that sit between
`torch_c.to_builtin_tensor` and `torch_c.from_builtin_tensor`, which the conversion folds away;
only statically shaped tensors are rewritten (`shape_and_element`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from shlo.ir.edit import create, ops_in
from shlo.ir.stablehlo import WORLD, ir

_VTENSOR = re.compile(r"!torch\.vtensor<\[([-\d, ]*)\],(.+)>$")
_SIGNED = re.compile(r"si(\d+)$")


def shape_and_element(value: Any) -> tuple[list[int], str] | None:
    """The static shape and element type of a `!torch.vtensor` value, None when its shape
    is dynamic or unknown."""
    match = _VTENSOR.match(str(value.type))
    if match is None:
        return None
    shape = [int(size) for size in match.group(1).split(",") if size.strip()]
    return (shape, match.group(2)) if all(size >= 0 for size in shape) else None


def tensor_type(shape: list[int], element: Any) -> Any:
    """The builtin tensor type of `shape` and `element` (a type, or a torch element type's
    name: its signed integers as StableHLO's signless ones)."""
    if isinstance(element, str):
        signed = _SIGNED.match(element)
        element = ir.Type.parse(f"i{signed.group(1)}" if signed else element)
    return ir.RankedTensorType.get(shape, element)


def to_builtin(value: Any) -> Any:
    """A statically shaped `!torch.vtensor` as the builtin tensor StableHLO takes."""
    found = shape_and_element(value)
    assert found is not None  # a rewrite applies to static shapes only
    return create("torch_c.to_builtin_tensor", tensor_type(*found), [value])


def reshape(value: Any, shape: list[int]) -> Any:
    """A builtin tensor reshaped to `shape`."""
    element = ir.RankedTensorType(value.type).element_type
    return create("stablehlo.reshape", tensor_type(shape, element), [value])


def constant(shape: list[int], element: Any, number: float) -> Any:
    """A splat `stablehlo.constant` of `number`."""
    kind = tensor_type(shape, element)
    scalar = kind.element_type
    if isinstance(scalar, ir.IntegerType):
        attribute = ir.IntegerAttr.get(scalar, int(number))
    else:
        attribute = ir.FloatAttr.get(scalar, number)
    value = ir.DenseElementsAttr.get_splat(kind, attribute)
    return create("stablehlo.constant", kind, [], {"value": value})


def compare(kind: Any, left: Any, right: Any, direction: str) -> Any:
    """`stablehlo.compare` of `left` and `right` in `direction` ("EQ", "LT", ...)."""
    attribute = ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>")
    return create("stablehlo.compare", kind, [left, right], {"comparison_direction": attribute})


def broadcast(value: Any, shape: list[int]) -> Any:
    """`value` (a builtin tensor) broadcast to `shape` as NumPy aligns them, on the right."""
    kind = ir.RankedTensorType(value.type)
    if list(kind.shape) == shape:
        return value
    dimensions = list(range(len(shape) - kind.rank, len(shape)))
    attributes = {"broadcast_dimensions": ir.DenseI64ArrayAttr.get(dimensions)}
    result = ir.RankedTensorType.get(shape, kind.element_type)
    return create("stablehlo.broadcast_in_dim", result, [value], attributes)


def convert(value: Any, element: str) -> Any:
    """`value` (a builtin tensor) converted to `element`, itself when it has that type."""
    kind = ir.RankedTensorType(value.type)
    if str(kind.element_type) == element:
        return value
    return create("stablehlo.convert", tensor_type(list(kind.shape), element), [value])


def literal(value: Any) -> Any:
    """The Python value of a `torch.constant.*` op's result (int, bool or str), None when it
    is not one."""
    owner = value.owner
    if isinstance(owner, ir.Block) or not owner.name.startswith("torch.constant."):
        return None
    attribute = owner.attributes["value"]
    if owner.name == "torch.constant.int":
        return ir.IntegerAttr(attribute).value
    if owner.name == "torch.constant.bool":
        return ir.BoolAttr(attribute).value
    if owner.name == "torch.constant.str":
        return ir.StringAttr(attribute).value
    return None


def _load_dialects() -> None:
    """Load `torch_c` and `stablehlo` into the current context, which has them only once a
    pass that creates their ops has run (ops made before would be unregistered ones)."""
    empty = ir.Module.create(ir.Location.unknown())
    WORLD.passmanager.PassManager.parse(
        "builtin.module(func.func(convert-torch-to-stablehlo))"
    ).run(empty.operation)


def rewrite_ops(module: Any, plan: Callable[[Any], Callable[[], Any] | None]) -> None:
    """Replace, in place, each op of `module` for which `plan(op)` gives a builder: the builtin
    tensor it builds (at the op, with the op's location) becomes the op's one result."""
    with module.context:
        for op in ops_in(module):
            build = plan(op)
            if build is None:
                continue
            if not module.context.is_registered_operation("torch_c.from_builtin_tensor"):
                _load_dialects()
            with ir.InsertionPoint(op), op.location:
                back = create("torch_c.from_builtin_tensor", op.results[0].type, [build()])
            op.results[0].replace_all_uses_with(back)
            op.erase()
