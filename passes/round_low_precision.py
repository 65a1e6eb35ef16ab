"""`shlo-round-low-precision`: each bf16 and f16 result rounded, where eager rounds it.

PyTorch eager (and StableHLO) round the result of every bf16 or f16 op to its type.  IREE 3.13
does not, inside a dispatch: on llvm-cpu and Vulkan its codegen pass
`iree-convert-bf16-arith-to-f32` retypes every bf16 value of a dispatch to f32 and turns the
`truncf`/`extf` pairs between ops into nothing, so a fused chain runs wholly in f32 and rounds
once, at the store; and llvm-cpu marks every float multiply and add `contract`, so LLVM fuses an
f16 multiply and the add that reads it into one FMA.  No iree-compile flag turns either off.

This pass writes the rounding of each such result as integer arithmetic on its f32 bits, which
neither pass can see through: round to nearest even at the type's last significand bit
(`bits + half - 1 + lsb`, the low bits cleared), NaN kept as it is; the value then goes back
to its type through f32.  An f16 value that is already f16 passes unchanged (the integer ops
only keep LLVM from fusing across it); for bf16 the rounding is exact for every finite value,
infinity, -0 and NaN, since bf16 has f32's exponent range.  Only results that an op other than
a terminator reads are rounded (what a dispatch stores is rounded by the store), and only ops
whose result can need rounding: arithmetic, conversions and reductions.  Ops in the bodies of
reductions, scatters and sorts are left alone, and so are dynamically shaped results.

Eager rounds where one of its ops ends, and torch-mlir writes some single ops as several
StableHLO ops in the tensor's type that count on IREE's excess precision (`fmod` and `remainder`
are `a - floor(a / b) * b`, wrong when rounded after each op); nothing in the module tells those
apart from the user's own chains, so this pass is not in the IREE pipeline: a user whose own
bf16/f16 chains must match eager bit for bit names it.  Sums are `shlo-accumulate-in-f32`'s.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import create, in_program, ops_in, producer
from shlo.ir.elementwise import compare
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

# Significand bits of f32 below each type's last one.
_DROPPED = {"bf16": 16, "f16": 13}
# Ops whose 16-bit float result is not always one of their operands' values.
_ROUNDED = frozenset(
    f"stablehlo.{name}"
    for name in (
        "add atan2 cbrt convert convolution cosine divide dot dot_general exponential "
        "exponential_minus_one log log_plus_one logistic multiply power reduce reduce_window "
        "remainder rsqrt sine sqrt subtract tan tanh"
    ).split()
)
_TERMINATORS = ("func.return", "stablehlo.return")


def _in_f32(kind: Any) -> Any:
    return ir.RankedTensorType.get(kind.shape, ir.F32Type.get())


def _read_by_ops(value: Any) -> bool:
    return any(use.owner.name not in _TERMINATORS for use in value.uses)


def _splat(kind: Any, value: int) -> Any:
    element = ir.IntegerType.get_signless(32)
    attribute = ir.DenseElementsAttr.get_splat(
        ir.RankedTensorType.get(kind.shape, element), ir.IntegerAttr.get(element, value)
    )
    return create("stablehlo.constant", attribute.type, [], {"value": attribute})


def _rounded(wide: Any, kind: Any, dropped: int) -> Any:
    """The f32 `wide` rounded to nearest even at significand bit `dropped`, as a `kind`."""
    words = ir.RankedTensorType.get(kind.shape, ir.IntegerType.get_signless(32))
    bits = create("stablehlo.bitcast_convert", words, [wide])
    shifted = create("stablehlo.shift_right_logical", words, [bits, _splat(kind, dropped)])
    lsb = create("stablehlo.and", words, [shifted, _splat(kind, 1)])
    biased = create("stablehlo.add", words, [bits, _splat(kind, (1 << (dropped - 1)) - 1)])
    carried = create("stablehlo.add", words, [biased, lsb])
    kept = create("stablehlo.and", words, [carried, _splat(kind, -(1 << dropped))])
    magnitude = create("stablehlo.and", words, [bits, _splat(kind, 0x7FFFFFFF)])
    nan = compare("GT", magnitude, _splat(kind, 0x7F800000), "SIGNED")
    chosen = create("stablehlo.select", words, [nan, bits, kept])
    back = create("stablehlo.bitcast_convert", wide.type, [chosen])
    return create("stablehlo.convert", kind, [back])


def _round_results(op: Any) -> None:
    for value in op.results:
        kind = value.type
        if not (isinstance(kind, ir.RankedTensorType) and kind.has_static_shape):
            continue
        dropped = _DROPPED.get(str(kind.element_type))
        if dropped is None or not _read_by_ops(value):
            continue
        with ir.InsertionPoint.after(op), op.location:
            wide = create("stablehlo.convert", _in_f32(kind), [value])
            rounded = _rounded(wide, kind, dropped)
        value.replace_all_uses_except(rounded, producer(wide))


@register_pass("shlo-round-low-precision")
def round_low_precision(module: Any, options: None) -> None:
    """Round each bf16/f16 result that another op reads, in ops IREE cannot fold away."""
    with module.context:
        for op in ops_in(module):
            if op.name in _ROUNDED and in_program(op):
                _round_results(op)
