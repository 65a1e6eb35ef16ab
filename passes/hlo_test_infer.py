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

The bindings expose neither `reifyReturnTypeShapes` nor a working
`inferReturnTypeComponents` (it needs the op's properties, crashes without them, and returns
components without their encoding), so both are ported from upstream's source.  Every
`reifyReturnTypeShapes` StableHLO and CHLO define (StablehloOps.cpp/td, ChloOps.cpp/td): an
operand's `shape.shape_of` (`deriveShapeFromOperand`: the elementwise ops, clamp, compare,
select, reverse, map, bitcast_convert between types of one size), the operand that is the
shape cast to `index` (dynamic_iota, dynamic_reshape, dynamic_broadcast_in_dim, rng), the
`shape.broadcast` of every operand's shape (CHLO's broadcasting ops), and the `tensor.dim`,
`tensor.extract` and `arith` arithmetic of the rest (broadcast, concatenate, dot_general,
gather, dynamic_gather, pad, dynamic_pad, real_dynamic_slice, reduce, transpose), folded as the
greedy driver that applies upstream's pattern folds the ops it creates.  The test op is
replaced by that shape, and the producer, once unused, erased unless it has effects (rng), as
the driver erases it.  An op that builds no shape (an op without its own reification, a
bitcast that changes the element size) leaves the test op, as upstream's failing pattern does;
a CHLO broadcast whose `broadcast_dimensions` are not NumPy's prefix padding gets upstream's
warning and stays.  `get_return_type_components` follows which ops define
`inferReturnTypeComponents` at all (StablehloOps.cpp, ChloOps.cpp): every other op has the
interface's default, which fails, so its test op stays.  Of those that define it, every op
but the dot family builds its inferred types from its components or its components from its
inferred types, so the components are the inferred types read as above; `dot` and
`dot_general` (sizes and bounds, `inferDotOp`/`inferDotGeneralOp`) and `chlo.ragged_dot`
(sizes, `inferRaggedDotOutputDimensions`) are ported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from shlo.ir.edit import ops_in, producer
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass, warn

_GET_TYPES = "hlo_test_infer.get_return_types"
_COMPONENTS = "hlo_test_infer.get_return_type_components"
_REIFY = "hlo_test_infer.reify_return_type_shapes"
# StableHLO's unary and binary elementwise ops (StablehloOps.td at 7b1b157), whose shape is
# their first operand's.
_ELEMENTWISE = (
    "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one floor "
    "imag is_finite log log_plus_one logistic not negate popcnt real round_nearest_afz "
    "round_nearest_even rsqrt sign sine sqrt tan tanh uniform_quantize uniform_dequantize "
    "add atan2 complex divide maximum minimum multiply power remainder shift_left "
    "shift_right_arithmetic shift_right_logical subtract and or xor"
).split()
# CHLO's unary elementwise ops (ChloOps.td), whose shape is their operand's.
_CHLO_ELEMENTWISE = (
    "_asin_acos_kernel acos acosh asin asinh atan atanh conj cosh sinh tan digamma erf erf_inv "
    "erfc is_inf is_neg_inf is_pos_inf lgamma square"
).split()
# The ops that define `inferReturnTypeComponents` (StablehloOps.cpp and ChloOps.cpp at 7b1b157,
# their macros expanded); any other op's is the interface's default, which fails.
_WITH_COMPONENTS = frozenset(
    [
        f"stablehlo.{name}"
        for name in (
            "and atan2 cbrt ceil count_leading_zeros cosine cross-replica-sum divide exponential "
            "exponential_minus_one floor log log_plus_one logistic maximum minimum multiply negate "
            "not or popcnt power reduce_precision remainder round_nearest_even round_nearest_afz "
            "rsqrt shift_left shift_right_arithmetic shift_right_logical sign sine sqrt subtract "
            "tan tanh xor add cholesky dot dot_general fft gather dynamic_gather "
            "get_dimension_size dynamic_update_slice collective_broadcast collective_permute "
            "all_to_all all_reduce batch_norm_grad batch_norm_training batch_norm_inference "
            "broadcast clamp dynamic_slice map reduce_window reduce rng select set_dimension_size "
            "sort triangular_solve compare uniform_dequantize"
        ).split()
    ]
    + [
        f"chlo.{name}"
        for name in (
            "_asin_acos_kernel acos acosh asin asinh atan atanh bessel_i1e conj cosh digamma erf "
            "erfc erf_inv lgamma mulhi next_after polygamma sinh square tan zeta broadcast_complex "
            "broadcast_compare broadcast_add broadcast_and broadcast_atan2 broadcast_divide "
            "broadcast_maximum broadcast_minimum broadcast_multiply broadcast_next_after "
            "broadcast_or broadcast_polygamma broadcast_power broadcast_remainder "
            "broadcast_shift_left "
            "broadcast_shift_right_arithmetic broadcast_shift_right_logical broadcast_subtract "
            "broadcast_xor broadcast_zeta constant_like broadcast_select ragged_dot top_k scan"
        ).split()
    ]
)
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


class _Scalars:
    """Index arithmetic as upstream's reifications build it, folded as the greedy driver that
    applies the test pattern folds each op it creates: constants made once, at the top of the
    function; `tensor.dim` of a static size; `tensor.extract` of a constant; arith of
    constants, and the identities arith's folders know (x + 0, x - 0, x * 1, x * 0, x / 1)."""

    def __init__(self, anchor: Any) -> None:
        function = anchor
        while function.name != "func.func":
            function = function.parent
        self._top = function.regions[0].blocks[0]
        self._made: list[Any] = []

    def constant(self, value: int, kind: Any = None) -> Any:
        kind = kind or ir.IndexType.get()
        attribute = ir.IntegerAttr.get(kind, value)
        for op in self._top.operations:
            if op.name == "arith.constant" and op.attributes["value"] == attribute:
                return op.result
        made = ir.Operation.create(
            "arith.constant",
            results=[kind],
            attributes={"value": attribute},
            ip=ir.InsertionPoint.at_block_begin(self._top),
        )
        self._made.append(made)
        return made.result

    def erase_unused(self) -> None:
        """Erase the constants made that nothing uses (the driver erases dead constants)."""
        for made in self._made:
            if not list(made.result.uses):
                made.erase()

    @staticmethod
    def known(value: Any) -> int | None:
        owner = value.owner
        if isinstance(owner, ir.Block) or owner.name != "arith.constant":
            return None
        attribute = owner.attributes["value"]
        return ir.IntegerAttr(attribute).value if isinstance(attribute, ir.IntegerAttr) else None

    def dim(self, tensor: Any, index: int) -> Any:
        size = ir.RankedTensorType(tensor.type).get_dim_size(index)
        if size != ir.ShapedType.get_dynamic_size():
            return self.constant(size)
        position = self.constant(index)
        return self._op("tensor.dim", ir.IndexType.get(), tensor, position)

    def extract(self, tensor: Any, index: int) -> Any:
        element = ir.RankedTensorType(tensor.type).element_type
        position = self.constant(index)
        owner = tensor.owner
        if not isinstance(owner, ir.Block) and owner.name == "arith.constant":
            values = ir.DenseIntElementsAttr(owner.attributes["value"])
            return self.constant(values[0 if values.is_splat else index], element)
        return self._op("tensor.extract", element, tensor, position)

    def cast(self, value: Any, kind: Any) -> Any:
        """maybeCastTo: `value` as `kind` (index to or from an integer)."""
        if value.type == kind:
            return value
        if (known := self.known(value)) is not None:
            return self.constant(known, kind)
        return self._op("arith.index_cast", kind, value)

    def arith(self, name: str, lhs: Any, rhs: Any) -> Any:
        a, b = self.known(lhs), self.known(rhs)
        if a is not None and b is not None and not (name == "divsi" and b == 0):
            folded = {
                "addi": lambda: a + b,
                "subi": lambda: a - b,
                "muli": lambda: a * b,
                "divsi": lambda: int(a / b),
                "maxsi": lambda: max(a, b),
            }[name]()
            return self.constant(folded, lhs.type)
        if (name in ("addi", "subi") and b == 0) or (name in ("muli", "divsi") and b == 1):
            return lhs
        if name in ("addi", "muli") and a == (0 if name == "addi" else 1):
            return rhs
        if name == "muli" and 0 in (a, b):
            return self.constant(0, lhs.type)
        return self._op(f"arith.{name}", lhs.type, lhs, rhs)

    def less_than(self, lhs: Any, rhs: Any) -> Any:
        a, b = self.known(lhs), self.known(rhs)
        if a is not None and b is not None:
            return self.constant(int(a < b), ir.IntegerType.get_signless(1))
        predicate = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 2)  # slt
        return ir.Operation.create(
            "arith.cmpi",
            results=[ir.IntegerType.get_signless(1)],
            operands=[lhs, rhs],
            attributes={"predicate": predicate},
        ).result

    def select(self, condition: Any, on_true: Any, on_false: Any) -> Any:
        if (known := self.known(condition)) is not None:
            return on_true if known else on_false
        return self._op("arith.select", on_true.type, condition, on_true, on_false)

    def extents(self, values: list[Any], kind: Any = None) -> Any:
        """`tensor.from_elements`, folded to a constant when every element is one."""
        kind = kind or ir.IndexType.get()
        result = ir.RankedTensorType.get([len(values)], kind)
        known = [self.known(v) for v in values]
        if values and None not in known:
            attribute = ir.DenseElementsAttr.get(
                np.array(known, dtype=np.int64 if kind == ir.IndexType.get() else None),
                type=result,
            )
            return ir.Operation.create(
                "arith.constant", results=[result], attributes={"value": attribute}
            ).result
        return self._op("tensor.from_elements", result, *values)

    def index_tensor(self, shape: Any) -> Any:
        """castToIndexTensor: an extent tensor of `index` as it is, any other cast to one."""
        length = ir.RankedTensorType(shape.type).get_dim_size(0)
        extents = ir.RankedTensorType.get([length], ir.IndexType.get())
        if shape.type == extents:
            return shape
        return self._op("arith.index_cast", extents, shape)

    @staticmethod
    def _op(name: str, result: Any, *operands: Any) -> Any:
        return ir.Operation.create(name, results=[result], operands=list(operands)).result


def _bits(kind: Any) -> int:
    if isinstance(kind, ir.ComplexType):
        return 2 * _bits(ir.ComplexType(kind).element_type)
    if isinstance(kind, ir.IndexType):
        return 64
    return cast(int, kind.width)


def _shape_of(value: Any) -> Any:
    """deriveShapeFromOperand."""
    return ir.Operation.create("shape.shape_of", operands=[value], infer_type=True).result


def _broadcast_shape(op: Any, b: _Scalars) -> Any:
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["broadcast_sizes"]))
    operand = op.operands[0]
    rank = ir.RankedTensorType(operand.type).rank
    return b.extents([b.constant(s) for s in sizes] + [b.dim(operand, i) for i in range(rank)])


def _concatenate_shape(op: Any, b: _Scalars) -> Any:
    shapes = [[b.dim(v, i) for i in range(ir.RankedTensorType(v.type).rank)] for v in op.operands]
    axis = ir.IntegerAttr(op.attributes["dimension"]).value
    extents = shapes[0]
    for other in shapes[1:]:
        extents[axis] = b.arith("addi", extents[axis], other[axis])
    return b.extents(extents)


def _listed(attribute: Any, field: str) -> list[int]:
    """A list field of a dimension-numbers attribute (`#stablehlo.dot<...>`, `.gather<...>`)."""
    found = re.search(field + r" = \[([\d, ]*)\]", str(attribute))
    return [int(d) for d in found.group(1).split(",") if d.strip()] if found else []


def _free(value: Any, taken: list[int]) -> list[int]:
    return [d for d in range(ir.RankedTensorType(value.type).rank) if d not in taken]


def _dot_general_shape(op: Any, b: _Scalars) -> Any:
    numbers = op.attributes["dot_dimension_numbers"]
    lhs, rhs = op.operands[0], op.operands[1]
    extents = [b.dim(lhs, d) for d in _listed(numbers, "lhs_batching_dimensions")]
    for value, side in ((lhs, "lhs"), (rhs, "rhs")):
        taken = _listed(numbers, f"{side}_batching_dimensions")
        taken += _listed(numbers, f"{side}_contracting_dimensions")
        extents += [b.dim(value, d) for d in _free(value, taken)]
    return b.extents(extents)


def _gather_shape(op: Any, b: _Scalars) -> Any:
    """reifyGatherShape (gather and dynamic_gather): each result dimension an offset one (a
    slice size, the collapsed and batching ones skipped) or a batch one (a `start_indices`
    dimension, the index vector's skipped)."""
    numbers = op.attributes["dimension_numbers"]
    indices = op.operands[1]
    if op.name == "stablehlo.gather":
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["slice_sizes"]))
        slices = [b.constant(size) for size in sizes]
    else:
        given = op.operands[2]
        count = ir.RankedTensorType(given.type).get_dim_size(0)
        slices = [b.cast(b.extract(given, i), ir.IndexType.get()) for i in range(count)]
    offsets = _listed(numbers, "offset_dims")
    skipped = _listed(numbers, "collapsed_slice_dims") + _listed(numbers, "operand_batching_dims")
    prefix = [slices[d] for d in range(max(skipped, default=-1) + 1) if d not in skipped]
    found = re.search(r"index_vector_dim = (\d+)", str(numbers))
    vector = int(found.group(1)) if found else 0  # printed only when not 0
    rank = ir.RankedTensorType(op.results[0].type).rank
    batch = [d for d in range(rank) if d not in offsets]
    extents = []
    for d in range(rank):
        if d in offsets:
            k = offsets.index(d)
            extents.append(prefix[k] if k < len(prefix) else slices[k + len(skipped)])
            continue
        k = batch.index(d)
        extents.append(b.cast(b.dim(indices, k + 1 if k >= vector else k), ir.IndexType.get()))
    return b.extents(extents)


def _pad_shape(op: Any, b: _Scalars) -> Any:
    operand = op.operands[0]
    low, high, interior = (
        list(ir.DenseI64ArrayAttr(op.attributes[name]))
        for name in ("edge_padding_low", "edge_padding_high", "interior_padding")
    )
    one, zero = b.constant(1), b.constant(0)
    extents = []
    for i in range(ir.RankedTensorType(operand.type).rank):
        edge = b.constant(high[i] + low[i])
        extent = b.dim(operand, i)
        if interior[i] > 0:
            between = b.arith("maxsi", b.arith("subi", extent, one), zero)
            extent = b.arith("addi", extent, b.arith("muli", between, b.constant(interior[i])))
        extents.append(b.arith("addi", extent, edge))
    return b.extents(extents)


def _dynamic_pad_shape(op: Any, b: _Scalars) -> Any:
    operand, _, low, high, interior = op.operands
    kind = ir.RankedTensorType(low.type).element_type
    zero, one = b.cast(b.constant(0), kind), b.cast(b.constant(1), kind)
    extents = []
    for i in range(ir.RankedTensorType(operand.type).rank):
        extent = b.cast(b.dim(operand, i), kind)
        low_i, high_i, interior_i = (b.extract(t, i) for t in (low, high, interior))
        empty = b.less_than(extent, one)
        between = b.arith("muli", interior_i, b.select(empty, zero, b.arith("subi", extent, one)))
        total = b.arith("addi", b.arith("addi", between, extent), low_i)
        extents.append(b.arith("addi", total, high_i))
    return b.extents(extents, kind)


def _real_dynamic_slice_shape(op: Any, b: _Scalars) -> Any:
    operand, starts, limits, strides = op.operands
    kind = ir.RankedTensorType(starts.type).element_type
    one = b.cast(b.constant(1), kind)
    extents = []
    for i in range(ir.RankedTensorType(operand.type).rank):
        start, limit, stride = (b.extract(t, i) for t in (starts, limits, strides))
        spanned = b.arith("addi", stride, b.arith("subi", limit, start))
        extents.append(b.arith("divsi", b.arith("subi", spanned, one), stride))
    return b.extents(extents, kind)


def _reduce_shape(op: Any, b: _Scalars) -> Any:
    operand = op.operands[0]
    reduced = list(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
    rank = ir.RankedTensorType(operand.type).rank
    return b.extents([b.dim(operand, i) for i in range(rank) if i not in reduced])


def _transpose_shape(op: Any, b: _Scalars) -> Any:
    operand = op.operands[0]
    extents = [b.dim(operand, i) for i in range(ir.RankedTensorType(operand.type).rank)]
    permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    return b.extents([extents[d] for d in permutation])


def _bitcast_convert_shape(op: Any, b: _Scalars) -> Any:
    """Upstream leaves a bitcast that changes the element size unreified (the test op stays)."""
    operand, result = (ir.RankedTensorType(v.type) for v in (op.operands[0], op.results[0]))
    same = _bits(operand.element_type) == _bits(result.element_type)
    return _shape_of(op.operands[0]) if same else None


# Each op's reifyReturnTypeShapes (StablehloOps.cpp/td at 7b1b157): the ops whose shape is an
# operand's (`deriveShapeFromOperand`), by the operand, and those that build it.
_SHAPE_OF_OPERAND = {
    **{f"stablehlo.{name}": 0 for name in _ELEMENTWISE},
    **{f"chlo.{name}": 0 for name in _CHLO_ELEMENTWISE},
    "chlo.constant_like": 0,
    "stablehlo.clamp": 1,
    "stablehlo.compare": 0,
    "stablehlo.map": 0,
    "stablehlo.reverse": 0,
    "stablehlo.select": 1,
}
_EXTENTS_OPERAND = {  # castToIndexTensor of the operand that is the result's shape
    "stablehlo.dynamic_iota": 0,
    "stablehlo.dynamic_reshape": 1,
    "stablehlo.dynamic_broadcast_in_dim": 1,
    "stablehlo.rng": 2,
}
_BUILT: dict[str, Callable[[Any, _Scalars], Any]] = {
    "stablehlo.bitcast_convert": _bitcast_convert_shape,
    "stablehlo.broadcast": _broadcast_shape,
    "stablehlo.concatenate": _concatenate_shape,
    "stablehlo.dot_general": _dot_general_shape,
    "stablehlo.dynamic_gather": _gather_shape,
    "stablehlo.dynamic_pad": _dynamic_pad_shape,
    "stablehlo.gather": _gather_shape,
    "stablehlo.pad": _pad_shape,
    "stablehlo.real_dynamic_slice": _real_dynamic_slice_shape,
    "stablehlo.reduce": _reduce_shape,
    "stablehlo.transpose": _transpose_shape,
}
# Reified ops the greedy driver does not erase once unused: they have memory effects.
_KEPT = {"stablehlo.rng"}


def _reified(defining: Any) -> Any:
    """The value upstream's reifyReturnTypeShapes builds for `defining`, at the insertion point;
    None where it builds none (having said why, where upstream says why)."""
    name = defining.name
    if name in _SHAPE_OF_OPERAND:
        return _shape_of(defining.operands[_SHAPE_OF_OPERAND[name]])
    if name in _EXTENTS_OPERAND or name in _BUILT:
        scalars = _Scalars(defining)
        if name in _EXTENTS_OPERAND:
            shape = scalars.index_tensor(defining.operands[_EXTENTS_OPERAND[name]])
        else:
            shape = _BUILT[name](defining, scalars)
        scalars.erase_unused()
        return shape
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
    return None  # the interface's default: an op that builds no shape fails the pattern


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
    if defining.name not in _KEPT and not any(len(list(r.uses)) for r in defining.results):
        defining.erase()  # as the greedy driver erases an unused op without effects


def _bounds(value: Any) -> list[int]:
    """encodingToBounds: a `#stablehlo.bounds` encoding's bounds (`?` as dynamic), or none."""
    encoding = ir.RankedTensorType(value.type).encoding
    found = re.fullmatch(r"#stablehlo\.bounds<(.*)>", str(encoding)) if encoding else None
    dynamic = ir.ShapedType.get_dynamic_size()
    if found is None:
        return []
    return [dynamic if b.strip() == "?" else int(b) for b in found.group(1).split(",")]


def _most_specific(sizes: tuple[int, int], bounds: tuple[int, int]) -> tuple[int, int]:
    """inferMostSpecificDimAndBound of an op that verified: a static size wins, else the
    smaller bound."""
    dynamic = ir.ShapedType.get_dynamic_size()
    static = [size for size in sizes if size != dynamic]
    if static:
        return static[0], dynamic
    known = [bound for bound in bounds if bound != dynamic]
    return dynamic, min(known, default=dynamic)


def _dot_components(defining: Any) -> tuple[list[int], list[int]]:
    """inferDotOp / inferDotGeneralOp: the result's sizes and bounds."""
    lhs, rhs = defining.operands[0], defining.operands[1]
    shapes = [ir.RankedTensorType(v.type).shape for v in (lhs, rhs)]
    dynamic = ir.ShapedType.get_dynamic_size()
    bounds = [_bounds(v) or [dynamic] * len(s) for v, s in zip((lhs, rhs), shapes, strict=True)]
    if defining.name == "stablehlo.dot":  # matrix or vector: lhs's rows, rhs's columns
        taken = [[len(shapes[0]) - 1], [0]]
        pairs: list[tuple[int, int]] = []
    else:
        numbers = defining.attributes["dot_dimension_numbers"]
        sides = ("lhs", "rhs")
        batching = [_listed(numbers, f"{side}_batching_dimensions") for side in sides]
        contracting = [_listed(numbers, f"{side}_contracting_dimensions") for side in sides]
        taken = [batching[i] + contracting[i] for i in (0, 1)]
        pairs = [
            _most_specific((shapes[0][a], shapes[1][b]), (bounds[0][a], bounds[1][b]))
            for a, b in zip(*batching, strict=True)
        ]
    sizes, limits = [p[0] for p in pairs], [p[1] for p in pairs]
    for side, value in enumerate((lhs, rhs)):
        for d in _free(value, taken[side]):
            sizes.append(shapes[side][d])
            limits.append(bounds[side][d])
    return sizes, limits


def _ragged_dot_sizes(defining: Any) -> list[int]:
    """inferRaggedDotOutputDimensions: the group count where the ragged dimension is
    contracted, then the batching, lhs's free and rhs's free non-group dimensions."""
    numbers = defining.attributes["ragged_dot_dimension_numbers"]
    lhs, rhs, groups = defining.operands[0], defining.operands[1], defining.operands[2]
    lhs_shape = ir.RankedTensorType(lhs.type).shape
    batching = _listed(numbers, "lhs_batching_dimensions")
    contracting = _listed(numbers, "lhs_contracting_dimensions")
    ragged_contracted = _listed(numbers, "lhs_ragged_dimensions")[0] in contracting
    sizes = [ir.RankedTensorType(groups.type).shape[-1]] if ragged_contracted else []
    sizes += [lhs_shape[d] for d in batching]
    sizes += [lhs_shape[d] for d in _free(lhs, batching + contracting)]
    taken = [
        d
        for field in ("batching", "contracting", "group")
        for d in _listed(numbers, f"rhs_{field}_dimensions")
    ]
    return sizes + [ir.RankedTensorType(rhs.type).shape[d] for d in _free(rhs, taken)]


def _components(defining: Any, location: Any) -> list[Any] | None:
    """inferReturnTypeComponents as upstream's test pattern prints each component: a tensor of
    its sizes, of `index` where it infers no element type, with its bounds
    (`componentToAttribute`, `boundsToEncoding`); None where the op does not define it."""
    if defining.name not in _WITH_COMPONENTS:
        return None
    if defining.name == "chlo.ragged_dot":
        return [ir.RankedTensorType.get(_ragged_dot_sizes(defining), ir.IndexType.get())]
    if defining.name not in ("stablehlo.dot", "stablehlo.dot_general"):
        return _inferred(defining, location)
    sizes, bounds = _dot_components(defining)
    prototype = next(
        (ir.RankedTensorType(v.type).encoding for v in defining.operands[:2] if _bounds(v)), None
    )
    encoding = None
    if prototype is not None and any(b != ir.ShapedType.get_dynamic_size() for b in bounds):
        text = ", ".join("?" if b == ir.ShapedType.get_dynamic_size() else str(b) for b in bounds)
        encoding = ir.Attribute.parse(f"#stablehlo.bounds<{text}>")
    return [ir.RankedTensorType.get(sizes, ir.IndexType.get(), encoding)]


def _inferred(defining: Any, location: Any) -> list[Any] | None:
    """The producer's inferred result types, its inference's errors reported at `location`."""
    if len(defining.regions):
        return _inferred_with_regions(defining, location)
    return _inferred_without_regions(defining, location)


def _rewrite(op: Any, interface: Any, replaced_by: str) -> None:
    """Replace the test op `op` by `replaced_by` carrying its producer's inferred types."""
    defining = _tested(op, interface)
    if defining is None:
        return
    if interface is ir.InferShapedTypeOpInterface:
        types = _components(defining, op.location)
    else:
        types = _inferred(defining, op.location)
    if types is None:
        return
    attributes = _attributes(op)
    attributes.update({f"types{i}": ir.TypeAttr.get(t) for i, t in enumerate(types)})
    replacement = ir.Operation.create(
        replaced_by,
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
        for op in ops_in(module, _REIFY):
            _reify(op)
        context = module.context
        emitting = context.emit_error_diagnostics
        context.emit_error_diagnostics = True  # inference errors print, as upstream's do
        try:
            for op in ops_in(module, _COMPONENTS):
                _rewrite(op, ir.InferShapedTypeOpInterface, "hlo_test_infer.return_type_components")
            for op in ops_in(module, _GET_TYPES):
                _rewrite(op, ir.InferTypeOpInterface, "hlo_test_infer.return_types")
        finally:
            context.emit_error_diagnostics = emitting
