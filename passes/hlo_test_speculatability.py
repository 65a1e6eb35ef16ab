"""`hlo-test-speculatability`: upstream's test pass for StableHLO ops' speculatability.

stablehlo-opt registers it (stablehlo/tests/TestUtils.cpp at 7b1b157) so that lit tests can
check `ConditionallySpeculatable::getSpeculatability`: each
`"hlo_test_speculatability.is_{speculatable,not_speculatable,recursively_speculatable}"(%v)` op
whose single operand's defining op has that one use and that speculatability is erased, with
the defining op; any other stays. The bindings do not expose the interface, so the rules are
ported here, one per op, from StablehloOps.td (traits), Base.h (StableHLO's speculatability
traits) and StablehloOps.cpp (ops' own `getSpeculatability`). Ops with no uses and no memory
effects are erased afterwards, as upstream's greedy driver does; its folding is not repeated.
A registered op outside StableHLO fails the pass: its rule is not ported, and a guess would be
silent; an unregistered one has no interfaces, so its test op stays, as upstream.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any

from shlo.ir.edit import ops_in, producer
from shlo.ir.stablehlo import ConvDimensionNumbers, DotDimensionNumbers, ir
from shlo.pipeline.python_pass import PassFailure, register_pass


class Spec(Enum):
    """mlir::Speculation::Speculatability."""

    NOT = "not_speculatable"
    YES = "speculatable"
    RECURSIVE = "recursively_speculatable"


_TEST_OPS = {f"hlo_test_speculatability.is_{spec.value}": spec for spec in Spec}
_CONSTANTS = ("stablehlo.constant", "arith.constant")  # what m_Constant() matches here


def _dynamic(value: Any, dim: int) -> bool:
    return bool(ir.RankedTensorType(value.type).is_dynamic_dim(dim))


def _rank(value: Any) -> int:
    return int(ir.RankedTensorType(value.type).rank)


def _static(value: Any) -> bool:
    """hasStaticShape; a token or tuple has no shape to disagree on."""
    return not isinstance(value.type, ir.RankedTensorType) or value.type.has_static_shape


def _int(op: Any, name: str) -> int:
    return int(ir.IntegerAttr(op.attributes[name]).value)


def _flag(op: Any, name: str) -> bool:
    return name in op.attributes and bool(ir.BoolAttr(op.attributes[name]).value)


def _constant(value: Any) -> bool:
    owner = producer(value)
    return owner is not None and owner.operation.name in _CONSTANTS


def _yes_unless(mismatch: bool, spec: Spec = Spec.YES) -> Spec:
    return Spec.NOT if mismatch else spec


def _static_only_in_result(operand: Any, result: Any, skip: tuple[int, ...] = ()) -> bool:
    """Some dimension outside `skip` static in `result` is dynamic in `operand`."""
    return any(
        not _dynamic(result, i) and _dynamic(operand, i)
        for i in range(_rank(result))
        if i not in skip
    )


def _static_dim_in_output(op: Any, spec: Spec = Spec.YES) -> Spec:
    """SpeculatableIfStaticDimInOutputIsStaticInInput (operand 0 against result 0)."""
    return _yes_unless(_static_only_in_result(op.operands[0], op.results[0]), spec)


def _all_inputs_static(op: Any, spec: Spec = Spec.YES) -> Spec:
    """SpeculatableIfAllInputsStatic."""
    return _yes_unless(not all(_static(v) for v in op.operands), spec)


def _shaped(count: int) -> Callable[[Any], Spec]:
    """hlo::getShapedSpeculatability: all inputs static and the last `count` operands constant."""

    def rule(op: Any) -> Spec:
        operands = list(op.operands)
        return _yes_unless(
            not all(_static(v) for v in operands)
            or not all(_constant(v) for v in operands[-count:])
        )

    return rule


def _collective(op: Any, fixed: tuple[str, ...]) -> Spec:
    """AllGather/AllToAll/ReduceScatter: the process-count dimensions `fixed` must be dynamic
    in each result, the others follow SpeculatableIfStaticDimInOutputIsStaticInInput."""
    dims = tuple(_int(op, name) for name in fixed)
    for operand, result in zip(op.operands, op.results, strict=False):
        if any(not _dynamic(result, d) for d in dims) or _static_only_in_result(
            operand, result, dims
        ):
            return Spec.NOT
    return Spec.YES


def _dot_general(op: Any) -> Spec:
    numbers = DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    lhs, rhs, result = op.operands[0], op.operands[1], op.results[0]
    special = (
        [*numbers.lhs_batching_dimensions, *numbers.lhs_contracting_dimensions],
        [*numbers.rhs_batching_dimensions, *numbers.rhs_contracting_dimensions],
    )
    index = len(numbers.lhs_batching_dimensions)
    for side, dims in zip((lhs, rhs), special, strict=True):
        if any(_dynamic(side, d) for d in dims):
            return Spec.NOT
    for side, dims in zip((lhs, rhs), special, strict=True):
        for i in (i for i in range(_rank(side)) if i not in dims):
            if not _dynamic(result, index) and _dynamic(side, i):
                return Spec.NOT
            index += 1
    return Spec.YES


def _convolution(op: Any) -> Spec:
    numbers = ConvDimensionNumbers(op.attributes["dimension_numbers"])
    lhs, rhs, result = op.operands[0], op.operands[1], op.results[0]
    batch_groups, feature_groups = _int(op, "batch_group_count"), _int(op, "feature_group_count")
    spatial = zip(
        numbers.input_spatial_dimensions,
        numbers.kernel_spatial_dimensions,
        numbers.output_spatial_dimensions,
        strict=False,
    )
    return _yes_unless(
        _dynamic(lhs, numbers.input_feature_dimension)
        or _dynamic(rhs, numbers.kernel_input_feature_dimension)
        or (
            _dynamic(lhs, numbers.input_batch_dimension)
            and (batch_groups > 1 or not _dynamic(result, numbers.output_batch_dimension))
        )
        or (
            _dynamic(rhs, numbers.kernel_output_feature_dimension)
            and (
                batch_groups > 1
                or feature_groups > 1
                or not _dynamic(result, numbers.output_feature_dimension)
            )
        )
        or any(
            not _dynamic(result, o) and (_dynamic(lhs, i) or _dynamic(rhs, k))
            for i, k, o in spatial
        )
    )


def _fft(op: Any) -> Spec:
    operand, result = op.operands[0], op.results[0]
    real = str(op.attributes["fft_type"]).rstrip(">").split()[-1] in ("RFFT", "IRFFT")
    lengths = len(ir.DenseI64ArrayAttr(op.attributes["fft_length"])) if real else 0
    first_fixed = _rank(operand) - lengths
    return _yes_unless(
        any(_dynamic(operand, i) for i in range(first_fixed, _rank(operand)))
        or _static_only_in_result(operand, result)
    )


def _bitcast_convert(op: Any) -> Spec:
    operand, result = op.operands[0], op.results[0]
    rank = min(_rank(operand), _rank(result))
    return _yes_unless(any(not _dynamic(result, i) and _dynamic(operand, i) for i in range(rank)))


def _dynamic_broadcast_in_dim(op: Any) -> Spec:
    operand, result = op.operands[0], op.results[0]
    if not _static(operand):
        return Spec.NOT
    one_element = all(d == 1 for d in ir.RankedTensorType(operand.type).shape)
    fully_dynamic = all(_dynamic(result, i) for i in range(_rank(result)))
    return _yes_unless(not (one_element and fully_dynamic) and not _constant(op.operands[1]))


def _concatenate(op: Any) -> Spec:
    dim = _int(op, "dimension")
    skip = (dim,) if _dynamic(op.results[0], dim) else ()
    return _yes_unless(
        any(_dynamic(v, i) for v in op.operands for i in range(_rank(v)) if i not in skip)
    )


def _set_dimension_size(op: Any) -> Spec:
    dim, result = _int(op, "dimension"), op.results[0]
    return _yes_unless(
        (not _constant(op.operands[1]) and not _dynamic(result, dim))
        or _static_only_in_result(op.operands[0], result, (dim,))
    )


def _transpose(op: Any) -> Spec:
    operand, result = op.operands[0], op.results[0]
    permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
    return _yes_unless(
        any(not _dynamic(result, i) and _dynamic(operand, p) for i, p in enumerate(permutation))
    )


def _rule(spec: Spec) -> Callable[[Any], Spec]:
    return lambda op: spec


_UNARY = "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one \
floor imag is_finite log log_plus_one logistic not negate popcnt real round_nearest_afz \
round_nearest_even rsqrt sign sine sqrt tan tanh uniform_quantize uniform_dequantize"
_BINARY = "add atan2 complex divide maximum minimum multiply power remainder shift_left \
shift_right_arithmetic shift_right_logical subtract and or xor"
_PURE = "constant iota create_token replica_id partition_id after_all get_tuple_element tuple \
dynamic_slice dynamic_update_slice broadcast cross-replica-sum dot einsum unary_einsum \
get_dimension_size return torch_index_select optimization_barrier"

# Each StableHLO op's getSpeculatability; None for an op that is not ConditionallySpeculatable.
RULES: dict[str, Callable[[Any], Spec] | None] = {
    **dict.fromkeys(_PURE.split(), _rule(Spec.YES)),
    **dict.fromkeys(("if", "case", "while"), _rule(Spec.RECURSIVE)),
    **dict.fromkeys(
        (*_UNARY.split(), "all_reduce", "slice", "collective_broadcast", "collective_reduce")
        + ("collective_permute", "reverse", "pad", "rng_bit_generator", "reduce_precision"),
        _static_dim_in_output,
    ),
    "select_and_scatter": lambda op: _static_dim_in_output(op, Spec.RECURSIVE),
    **dict.fromkeys(
        (*_BINARY.split(), "compare", "batch_norm_grad", "batch_norm_inference")
        + ("batch_norm_training", "broadcast_in_dim", "clamp", "select"),
        _all_inputs_static,
    ),
    **dict.fromkeys(
        ("reduce", "async_start", "map", "sort", "reduce_window"),
        lambda op: _all_inputs_static(op, Spec.RECURSIVE),
    ),
    **dict.fromkeys(("dynamic_reshape", "dynamic_gather", "dynamic_conv"), _shaped(1)),
    **dict.fromkeys(("real_dynamic_slice", "dynamic_pad"), _shaped(3)),
    "all_gather": lambda op: _collective(op, ("all_gather_dim",)),
    "all_to_all": lambda op: _collective(op, ("split_dimension", "concat_dimension")),
    "reduce_scatter": lambda op: _collective(op, ("scatter_dimension",)),
    "dot_general": _dot_general,
    "convolution": _convolution,
    "fft": _fft,
    "gather": lambda op: Spec.NOT if _flag(op, "indices_are_sorted") else _all_inputs_static(op),
    "scatter": lambda op: (
        Spec.NOT
        if _flag(op, "unique_indices") or _flag(op, "indices_are_sorted")
        else _all_inputs_static(op, Spec.RECURSIVE)
    ),
    "dynamic_iota": lambda op: _yes_unless(
        not _constant(op.operands[0])
        and not all(_dynamic(op.results[0], i) for i in range(_rank(op.results[0])))
    ),
    "bitcast_convert": _bitcast_convert,
    "dynamic_broadcast_in_dim": _dynamic_broadcast_in_dim,
    "concatenate": _concatenate,
    "set_dimension_size": _set_dimension_size,
    "reshape": lambda op: _yes_unless(not _static(op.operands[0])),
    "transpose": _transpose,
    "triangular_solve": lambda op: _yes_unless(
        _flag(op, "unit_diagonal") or not all(_static(v) for v in op.operands[:2])
    ),
    **dict.fromkeys(
        ("infeed", "outfeed", "send", "recv", "async_done", "cholesky", "composite")
        + ("custom_call", "rng"),
        None,
    ),
}
# Ops with RecursiveMemoryEffects; the others named here have none (Pure or NoMemoryEffect).
_RECURSIVE_EFFECTS = "if case while reduce map scatter select_and_scatter sort reduce_window"
_EFFECT_FREE = {*_UNARY.split(), *_BINARY.split(), *_PURE.split()} | {
    *"dynamic_iota compare slice batch_norm_grad batch_norm_inference batch_norm_training \
bitcast_convert broadcast_in_dim dynamic_broadcast_in_dim cholesky clamp concatenate \
convolution dot_general fft gather reshape dynamic_reshape select set_dimension_size reverse \
pad transpose triangular_solve rng_bit_generator reduce_precision real_dynamic_slice \
dynamic_pad dynamic_gather dynamic_conv".split()
}


def speculatability(op: Any) -> Spec | None:
    """`op`'s getSpeculatability; None where it is not ConditionallySpeculatable (an op of no
    registered dialect has no interfaces)."""
    full = op.operation.name
    dialect, _, name = full.partition(".")
    if not op.context.is_registered_operation(full):
        return None
    if dialect != "stablehlo" or name not in RULES:
        raise PassFailure(f"the speculatability of '{full}' is not ported to shlo", op)
    rule = RULES[name]
    return None if rule is None else rule(op)


def _effect_free(op: Any) -> bool:
    """wouldOpBeTriviallyDead's effect test, for the StableHLO ops whose effects are known."""
    full = op.operation.name
    dialect, _, name = full.partition(".")
    if full == "arith.constant" or (dialect == "stablehlo" and name in _EFFECT_FREE):
        return True
    if dialect != "stablehlo" or name not in _RECURSIVE_EFFECTS.split():
        return False
    return all(_effect_free(inner) for inner in ops_in(op)[:-1])


def _uses(op: Any) -> int:
    return sum(len(list(result.uses)) for result in op.results)


def _erase_dead(op: Any) -> bool:
    """Erase the unused, effect-free ops under `op`, users before producers (terminators stay,
    as wouldOpBeTriviallyDead keeps them); whether any was erased."""
    erased = False
    for region in op.regions:
        for block in region.blocks:
            for inner in reversed(list(block.operations)):
                if (
                    inner.operation.name != "stablehlo.return"
                    and not _uses(inner)
                    and _effect_free(inner)
                ):
                    inner.erase()
                    erased = True
                else:
                    erased = _erase_dead(inner) or erased
    return erased


def _check(test: Any, spec: Spec) -> bool:
    """Erase `test` and its operand's producer if that has one use and speculatability `spec`."""
    if len(test.operands) != 1:
        return False
    defining = producer(test.operands[0])
    if defining is None or _uses(defining) != 1 or speculatability(defining) != spec:
        return False
    test.erase()
    defining.erase()
    return True


@register_pass("hlo-test-speculatability", anchor="func.func")
def hlo_test_speculatability(module: Any, options: None) -> None:
    """Check each test op against its operand's producer, as upstream's test pass does."""
    with module.context:
        tests = [op for op in ops_in(module) if op.operation.name in _TEST_OPS]
        for test in tests:
            _check(test, _TEST_OPS[test.operation.name])
        while _erase_dead(module.operation):
            pass
