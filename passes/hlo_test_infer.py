"""`hlo-test-infer`: upstream's test pass for the type-inference interfaces of StableHLO ops.

stablehlo-opt registers it (stablehlo/tests/TestUtils.cpp at 7b1b157) so that lit tests can
call an op's inference: each `hlo_test_infer.get_return_types` op whose one operand's producer
implements `InferTypeOpInterface` becomes `hlo_test_infer.return_types`, with the producer's
inferred result types as `types0`, `types1`, ... attributes.  A producer whose inference fails
reports its errors and the test op stays; the pass still succeeds, as upstream's greedy driver
does when a pattern fails.

The bindings' `InferTypeOpInterface.inferReturnTypes` cannot take an op's properties (the call
crashes on StableHLO's inherent attributes), so inference runs the way MLIR's C API builds an op
with inferred types: a twin of the producer is created from its operands and attributes
(`infer_type=True`, which fills the properties from the attributes), read and erased.  An op
with regions cannot be built with them, so its twin gets the regions of a clone and deliberately
wrong result types, and the types MLIR's verifier reports as inferred are read off its message
(`verifyInferredResultTypes`); the producer verified when it was parsed, so that message is
there, and the pass fails at the op if it is not.

The bindings do not expose `reifyReturnTypeShapes`, so `reify_return_type_shapes` is ported for
the ops whose shape is built by upstream's shared helpers (Base.cpp, BroadcastUtils.cpp): an
operand's `shape.shape_of` (`deriveShapeFromOperand`) and the `shape.broadcast` of every
operand's (CHLO's broadcasting ops); the test op is replaced by that shape and the producer,
pure and now unused, erased as upstream's greedy driver erases it.  Any other op's reification,
and `get_return_type_components` (the bindings' `inferReturnTypeComponents` needs the op's
properties, crashes without them, and returns components without their encoding), fail the
pass at the op; a CHLO broadcast whose `broadcast_dimensions` are not NumPy's prefix padding gets
upstream's warning and stays.
"""

from __future__ import annotations

import re
from typing import Any

from shlo.ir.edit import ops_in, producer
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass, warn

_GET_TYPES = "hlo_test_infer.get_return_types"
_COMPONENTS = "hlo_test_infer.get_return_type_components"
_REIFY = "hlo_test_infer.reify_return_type_shapes"
# Ops whose reifyReturnTypeShapes is deriveShapeFromOperand: which operand gives the shape.
_SHAPE_OF_OPERAND = {
    "chlo.constant_like": 0,
    "stablehlo.clamp": 1,
    "stablehlo.compare": 0,
    "stablehlo.reverse": 0,
    "stablehlo.select": 1,
}
_INFERRED = re.compile(r"inferred type\(s\) (.*) are incompatible with return type\(s\)")
_QUOTED = re.compile(r"'([^']*)'")


def _implements(interface: Any, op: Any) -> bool:
    try:
        interface(op)
    except ValueError:
        return False
    return True


def _tested(op: Any, interface: Any) -> Any:
    """The producer `op` asks about, as upstream's patterns find it; None where they do not
    match (not one operand, a block argument, a producer without the interface)."""
    if len(op.operands) != 1:
        return None
    defining = producer(op.operands[0])
    return defining if defining is not None and _implements(interface, defining) else None


def _attributes(op: Any) -> dict[str, Any]:
    return {op.attributes[i].name: op.attributes[i].attr for i in range(len(op.attributes))}


def _wrong(result: Any) -> Any:
    """A type of `result`'s kind and shape that no inference finds compatible with it."""
    if not isinstance(result.type, ir.RankedTensorType):
        return ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    tensor = ir.RankedTensorType(result.type)
    bool_type = ir.IntegerType.get_signless(1)
    element = ir.F32Type.get() if tensor.element_type == bool_type else bool_type
    return ir.RankedTensorType.get(tensor.shape, element, tensor.encoding)


def _inferred_without_regions(defining: Any, location: Any) -> list[Any] | None:
    try:
        twin = ir.Operation.create(
            defining.name,
            operands=list(defining.operands),
            attributes=_attributes(defining),
            loc=location,
            ip=ir.InsertionPoint(defining),
            infer_type=True,
        )
    except ir.MLIRError:  # the inference reported why, at `location`
        return None
    types = [result.type for result in twin.results]
    twin.erase()
    return types


def _inferred_with_regions(defining: Any, location: Any) -> list[Any]:
    twin = ir.Operation.create(
        defining.name,
        results=[_wrong(result) for result in defining.results],
        operands=list(defining.operands),
        attributes=_attributes(defining),
        regions=len(defining.regions),
        loc=location,
        ip=ir.InsertionPoint(defining),
    )
    clone = defining.clone(ip=ir.InsertionPoint(defining))
    for source, target in zip(clone.regions, twin.regions, strict=True):
        for block in list(source.blocks):
            block.append_to(target)
    clone.erase()
    context = location.context
    emitting = context.emit_error_diagnostics
    context.emit_error_diagnostics = False  # the twin's verifier errors are read, not printed
    try:
        twin.verify()
        messages: list[str] = []
    except ir.MLIRError as error:
        messages = [d.message for d in error.error_diagnostics]
    finally:
        context.emit_error_diagnostics = emitting
        twin.erase()
    found = [m for m in map(_INFERRED.search, messages) if m]
    types = [ir.Type.parse(text) for text in _QUOTED.findall(found[0].group(1))] if found else []
    if len(types) != len(defining.results):  # the op verified, so its inference succeeds
        why = messages[0] if messages else "the op verifies with types its inference rejects"
        raise PassFailure(f"cannot read the inferred types of this op's twin: {why}", defining)
    return types


def _numpy_ranked(lhs: Any, rhs: Any, dimensions: list[int]) -> bool:
    """isLegalNumpyRankedBroadcast: ranked operands, the smaller one's dimensions padded on
    the left."""
    if not all(isinstance(v.type, ir.RankedTensorType) for v in (lhs, rhs)):
        return False
    ranks = sorted(ir.RankedTensorType(v.type).rank for v in (lhs, rhs))
    return ranks[0] == ranks[1] or dimensions == list(range(ranks[1] - ranks[0], ranks[1]))


def _broadcast_extents(operands: list[Any]) -> Any:
    """computeNaryElementwiseBroadcastingResultExtents: the broadcast of every operand's shape
    (neither op folds here: shape_of folds only by a canonicalization pattern)."""
    shapes = [
        ir.Operation.create("shape.shape_of", operands=[v], infer_type=True).results[0]
        for v in operands
    ]
    sizes = [ir.RankedTensorType(s.type).get_dim_size(0) for s in shapes]
    dynamic = ir.ShapedType.get_dynamic_size()
    rank = dynamic if dynamic in sizes else max(sizes)
    extents = ir.RankedTensorType.get([rank], ir.IndexType.get())
    return ir.Operation.create("shape.broadcast", results=[extents], operands=shapes).results[0]


def _reified(defining: Any) -> Any:
    """The value upstream's reifyReturnTypeShapes builds for `defining`, at the insertion point;
    None where it fails (having said why)."""
    name = defining.name
    if name in _SHAPE_OF_OPERAND:
        operand = defining.operands[_SHAPE_OF_OPERAND[name]]
        return ir.Operation.create("shape.shape_of", operands=[operand], infer_type=True).result
    if name == "chlo.broadcast_select":
        return _broadcast_extents(list(defining.operands))
    if name.startswith("chlo.broadcast_"):
        lhs, rhs = defining.operands
        if "broadcast_dimensions" in defining.attributes:
            attribute = defining.attributes["broadcast_dimensions"]
            if not _numpy_ranked(lhs, rhs, list(ir.DenseI64ArrayAttr(attribute))):
                warn(
                    defining.location,
                    "unsupported non prefix-padded dynamic rank "
                    f"broadcast_dimensions = {attribute}",
                )
                return None
        return _broadcast_extents([lhs, rhs])
    raise PassFailure(f"the reifyReturnTypeShapes of '{name}' is not ported to shlo", defining)


def _reify(op: Any) -> None:
    defining = _tested(op, ir.InferShapedTypeOpInterface)
    if defining is None:
        return
    with op.location, ir.InsertionPoint(op):
        shape = _reified(defining)
    if shape is None:
        return
    for result in op.results:
        result.replace_all_uses_with(shape)
    op.erase()
    if not any(len(list(result.uses)) for result in defining.results):
        defining.erase()  # every op ported above is pure


def _rewrite(op: Any) -> None:
    defining = _tested(op, ir.InferTypeOpInterface)
    if defining is None:
        return
    infer = _inferred_with_regions if len(defining.regions) else _inferred_without_regions
    types = infer(defining, op.location)
    if types is None:
        return
    attributes = _attributes(op)
    attributes.update({f"types{i}": ir.TypeAttr.get(t) for i, t in enumerate(types)})
    replacement = ir.Operation.create(
        "hlo_test_infer.return_types",
        results=[result.type for result in op.results],
        operands=list(op.operands),
        attributes=attributes,
        loc=op.location,
        ip=ir.InsertionPoint(op),
    )
    for old, new in zip(op.results, replacement.results, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


@register_pass("hlo-test-infer", anchor="func.func")
def hlo_test_infer(module: Any, options: None) -> None:
    """Rewrite each test op as upstream's test pass does, or fail at one the bindings cannot
    answer."""
    with module.context, ir.Location.unknown():
        for op in ops_in(module, _COMPONENTS):
            if _tested(op, ir.InferShapedTypeOpInterface) is not None:
                raise PassFailure(
                    f"'{_COMPONENTS}' is not supported: the bindings' "
                    "inferReturnTypeComponents needs the op's properties, which no Python call "
                    "yields, and its components carry no encoding",
                    op,
                )
        for op in ops_in(module, _REIFY):
            _reify(op)
        context = module.context
        emitting = context.emit_error_diagnostics
        context.emit_error_diagnostics = True  # inference errors print, as upstream's do
        try:
            for op in ops_in(module, _GET_TYPES):
                _rewrite(op)
        finally:
            context.emit_error_diagnostics = emitting
