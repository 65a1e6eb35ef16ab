"""`hlo-test-broadcast`: upstream's test pass for StableHLO's NumPy-style broadcast helper.

stablehlo-opt registers it (stablehlo/tests/TestUtils.cpp at 7b1b157) so that lit tests can
drive `numpyBroadcastIfNeeded` (StablehloBroadcastLowering.cpp): each
`"hlo_test_broadcast.numpy_broadcast"(...)` op has its operands broadcast to their common shape,
bounded dimensions included, and becomes `stablehlo.custom_call @numpy_broadcasted`. The same
rules in the same order here, so upstream's RUN lines run on the wheels, which lack the pass.
A shape that does not broadcast is an error at the op, which stays; the pass still succeeds,
as upstream's greedy driver does when a pattern fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shlo.ir.edit import create, ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_TEST_OP = "hlo_test_broadcast.numpy_broadcast"


@dataclass(frozen=True)
class _Dim:
    """One dimension: its size (the bound where `bound_of` is set) and, for a bounded dynamic
    one, the value and dimension whose runtime size it has (upstream's DimensionInfo)."""

    size: int
    bound_of: tuple[Any, int] | None = None


class _BroadcastError(Exception):
    """A diagnostic upstream emits, at `location`."""

    def __init__(self, message: str, location: Any) -> None:
        super().__init__(message)
        self.location = location


def _bounds(tensor: Any) -> list[int] | None:
    """The `#stablehlo.bounds<...>` of a tensor type, `?` as -1; None without one."""
    encoding = tensor.encoding
    text = str(encoding) if encoding is not None else ""
    if not text.startswith("#stablehlo.bounds<"):
        return None
    inner = text[len("#stablehlo.bounds<") : -1]
    return [-1 if b.strip() == "?" else int(b) for b in inner.split(",")] if inner else []


def _dimensions(value: Any) -> list[_Dim]:
    if not isinstance(value.type, ir.RankedTensorType):
        raise _BroadcastError("expected ranked tensor type for broadcast inputs", value.location)
    tensor = ir.RankedTensorType(value.type)
    bounds = _bounds(tensor)
    dims = []
    for index in range(tensor.rank):
        if bounds is None or not tensor.is_dynamic_dim(index):
            dims.append(_Dim(tensor.get_dim_size(index)))
        else:
            dims.append(_Dim(bounds[index], (value, index)))
    return dims


def _broadcast_shape(a: list[_Dim], b: list[_Dim], location: Any) -> list[_Dim]:
    """NumPy's rule, right to left; a bounded dimension matches only a bounded one."""
    rank = max(len(a), len(b))
    result: list[_Dim] = [_Dim(1)] * rank
    for i in range(1, rank + 1):
        dim_a = a[len(a) - i] if i <= len(a) else _Dim(1)
        dim_b = b[len(b) - i] if i <= len(b) else _Dim(1)
        if dim_a.size == 1 or dim_b.size == 1:
            result[rank - i] = dim_b if dim_a.size == 1 else dim_a
            continue
        if dim_a.size != dim_b.size:
            raise _BroadcastError(
                f"incompatible shapes for broadcasting {dim_a.size} and {dim_b.size}", location
            )
        if (dim_a.bound_of is None) != (dim_b.bound_of is None):
            raise _BroadcastError("cannot mix bounded and static dimensions in broadcast", location)
        result[rank - i] = dim_a
    return result


def _tensor_type(dims: list[_Dim], element: Any) -> Any:
    """The ranked tensor type of `dims`, with a bounds encoding where one is bounded."""
    dynamic = ir.ShapedType.get_dynamic_size()
    shape = [dynamic if d.bound_of else d.size for d in dims]
    if not any(d.bound_of for d in dims):
        return ir.RankedTensorType.get(shape, element)
    bounds = ", ".join(str(d.size) if d.bound_of else "?" for d in dims)
    encoding = ir.Attribute.parse(f"#stablehlo.bounds<{bounds}>")
    return ir.RankedTensorType.get(shape, element, encoding)


def _text(dims: list[_Dim]) -> str:
    return "tensor<" + "x".join(("b" if d.bound_of else "") + str(d.size) for d in dims) + ">"


def _broadcast(value: Any, shape: list[_Dim]) -> Any:
    """`value` broadcast to `shape`: broadcast_in_dim to the padded shape, then
    get_dimension_size / set_dimension_size for each bounded dimension it had to grow into."""
    location = value.location
    if not isinstance(value.type, ir.RankedTensorType):
        raise _BroadcastError("expected ranked tensor type for broadcast inputs", location)
    tensor = ir.RankedTensorType(value.type)
    target = _tensor_type(shape, tensor.element_type)
    if tensor == target:
        return value
    rank_diff = len(shape) - tensor.rank
    if rank_diff < 0:
        raise _BroadcastError(
            f"input rank must be <= output rank, got {tensor.rank} vs {len(shape)}", location
        )
    padded = list(shape)
    for i, dim in enumerate(_dimensions(value)):
        wanted = shape[i + rank_diff]
        if dim.size not in (1, wanted.size):
            raise _BroadcastError(
                f"Cannot broadcast input: {tensor} to target shape {_text(shape)}", location
            )
        if dim.bound_of is None and wanted.bound_of is not None:
            padded[i + rank_diff] = _Dim(wanted.size)
    padded[:rank_diff] = [_Dim(d.size) for d in shape[:rank_diff]]
    i64 = ir.IntegerType.get_signless(64)
    with location:
        dims_attr = ir.DenseI64ArrayAttr.get(list(range(rank_diff, len(shape))))
        padded_type = _tensor_type(padded, tensor.element_type)
        result = create(
            "stablehlo.broadcast_in_dim",
            padded_type,
            [value],
            {"broadcast_dimensions": dims_attr},
        )
        for i, (have, wanted) in enumerate(zip(padded, shape, strict=True)):
            if have.bound_of is not None or wanted.bound_of is None:
                continue
            source, source_dim = wanted.bound_of
            size = create(
                "stablehlo.get_dimension_size",
                ir.RankedTensorType.get([], ir.IntegerType.get_signless(32)),
                [source],
                {"dimension": ir.IntegerAttr.get(i64, source_dim)},
            )
            padded[i] = wanted
            result = create(
                "stablehlo.set_dimension_size",
                _tensor_type(padded, tensor.element_type),
                [result, size],
                {"dimension": ir.IntegerAttr.get(i64, i)},
            )
    return result


def _report(context: Any, error: _BroadcastError) -> None:
    """Emit the error to the context's handlers, as printed output of a pass that succeeds: the
    bindings otherwise hold a pass's errors for an MLIRError, and drop them when it passes."""
    context.emit_error_diagnostics = True
    try:
        error.location.emit_error(str(error))
    finally:
        context.emit_error_diagnostics = False


def _rewrite(op: Any) -> None:
    operands = list(op.operands)
    if not operands:
        raise _BroadcastError("requires at least one operand to broadcast", op.location)
    shape = _dimensions(operands[0])
    for operand in operands[1:]:
        shape = _broadcast_shape(shape, _dimensions(operand), operand.location)
    with ir.InsertionPoint(op):
        broadcast = [_broadcast(operand, shape) for operand in operands]
        with op.location:
            call = ir.Operation.create(
                "stablehlo.custom_call",
                results=[r.type for r in op.results],
                operands=broadcast,
                attributes={
                    "call_target_name": ir.StringAttr.get("numpy_broadcasted"),
                    "has_side_effect": ir.BoolAttr.get(True),
                },
            )
    for old, new in zip(op.results, call.results, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


@register_pass("hlo-test-broadcast", anchor="func.func")
def hlo_test_broadcast(module: Any, options: None) -> None:
    """Rewrite each numpy_broadcast test op as upstream's test pass does."""
    with module.context, ir.Location.unknown():
        for op in ops_in(module, _TEST_OP):
            try:
                _rewrite(op)
            except _BroadcastError as error:
                _report(module.context, error)
