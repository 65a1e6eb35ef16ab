"""`shlo-hashed-rng`: float `stablehlo.rng` UNIFORM draws made from a keyed hash, a key each.

IREE 3.13 lowers `stablehlo.rng` to a function of the element's position alone: two draws of
the same shape are the same numbers, and neighbouring elements step by a near-constant amount
(0.257 apart).  torch-mlir builds `randn` from two such draws (Box-Muller), so `torch.randn`
came out with a standard deviation of 1.056, and `torch.rand(n), torch.rand(n)` returned one
tensor twice, without a word.  (`stablehlo.rng_bit_generator` is no way out: on Vulkan, which
has no 64-bit integers, its THREE_FRY gave zeros.)  This pass replaces each float UNIFORM draw
of static shape by a call to a private function that hashes every element's index with a key
made from the draw's position in the module (murmur3's finalizer, twice, in 32-bit integer
arithmetic) and makes the bits floats in [low, high): 23 random bits for f32 and 52 for f64,
centred so that 0 never comes (torch-mlir's Box-Muller takes its logarithm), 11 for f16 and 8
for bf16.  The numbers still repeat from one call to the next, as every stateless draw does.
Each key passes an optimization barrier: with a constant key the whole draw is a constant
expression, which IREE evaluated while compiling, slowly for big draws and in a dispatch with
more constants than it allows ("dispatch requiring 74 constants exceeds limit of 64").
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

# Each draw's key: two 32-bit words from its position in the module.
_KEY, _STEP = 0x5EED5EED, 0x9E3779B9
_FLOATS = ("f16", "bf16", "f32", "f64")


def _tensor(shape: list[int], element: str) -> str:
    return f"tensor<{''.join(f'{d}x' for d in shape)}{element}>"


# Random bits per element: what each float type holds exactly below 1.
_BITS = {"f16": 11, "bf16": 8, "f32": 23}


def _unit_narrow(shape: list[int], element: str) -> list[str]:
    """Lines that make `%bits` (ui32) into `%unit`, f32 in (0, 1) for f32: the top 23 bits and
    a half, times 2^-23 (never 0: Box-Muller takes a logarithm, and never 1); for f16 and bf16,
    the top 11 or 8 bits times 2^-11 or 2^-8, in [0, 1) exactly in that type."""
    u, f = _tensor(shape, "ui32"), _tensor(shape, "f32")
    bits = _BITS[element]
    lines = [
        f"  %drop = stablehlo.constant dense<{32 - bits}> : {u}",
        f"  %top = stablehlo.shift_right_logical %bits, %drop : {u}",
        f"  %top_f = stablehlo.convert %top : ({u}) -> {f}",
        f"  %scale = stablehlo.constant dense<{2.0**-bits!r}> : {f}",
    ]
    if element != "f32":
        return [*lines, f"  %unit = stablehlo.multiply %top_f, %scale : {f}"]
    return [
        *lines,
        f"  %half = stablehlo.constant dense<5.000000e-01> : {f}",
        f"  %centred = stablehlo.add %top_f, %half : {f}",
        f"  %unit = stablehlo.multiply %centred, %scale : {f}",
    ]


def _unit_f64(shape: list[int]) -> list[str]:
    """Lines that make `%bits` (two ui32 words per element, leading dim 2) into `%unit`, f64 in
    (0, 1): (26 bits of each word as one 52-bit number, and a half) * 2^-52."""
    u, f, one = _tensor(shape, "ui32"), _tensor(shape, "f64"), _tensor([1, *shape], "ui32")
    lines = [f"  %drop = stablehlo.constant dense<6> : {u}"]
    for index, word in enumerate(("hi", "lo")):
        ranges = ", ".join([f"{index}:{index + 1}", *(f"0:{d}" for d in shape)])
        lines += [
            f"  %{word}_1 = stablehlo.slice %bits [{ranges}] : ({_tensor([2, *shape], 'ui32')})"
            f" -> {one}",
            f"  %{word}_w = stablehlo.reshape %{word}_1 : ({one}) -> {u}",
            f"  %{word}_s = stablehlo.shift_right_logical %{word}_w, %drop : {u}",
            f"  %{word}_f = stablehlo.convert %{word}_s : ({u}) -> {f}",
        ]
    return [
        *lines,
        f"  %p26 = stablehlo.constant dense<67108864.0> : {f}",
        f"  %half = stablehlo.constant dense<5.000000e-01> : {f}",
        f"  %p52 = stablehlo.constant dense<{2.0**-52!r}> : {f}",
        f"  %hi_m = stablehlo.multiply %hi_f, %p26 : {f}",
        f"  %sum = stablehlo.add %hi_m, %lo_f : {f}",
        f"  %centred = stablehlo.add %sum, %half : {f}",
        f"  %unit = stablehlo.multiply %centred, %p52 : {f}",
    ]


def _fmix(x: str, prefix: str, u: str) -> tuple[list[str], str]:
    """murmur3's 32-bit finalizer of `x`: lines and the name of the result."""
    lines = []
    for step, (shift, multiplier) in enumerate((("s16", "m1"), ("s13", "m2"), ("s16", None))):
        name = f"%{prefix}{step}"
        lines += [
            f"  {name}s = stablehlo.shift_right_logical {x}, %{shift} : {u}",
            f"  {name}x = stablehlo.xor {x}, {name}s : {u}",
        ]
        x = f"{name}x"
        if multiplier:
            lines.append(f"  {name}m = stablehlo.multiply {x}, %{multiplier} : {u}")
            x = f"{name}m"
    return lines, x


def _hashed_bits(count: int) -> tuple[list[str], str]:
    """Lines that make `%key` (2 x ui32) into `count` random ui32 words, and the name of those
    words: murmur3's finalizer, twice, of each element's index mixed with the key.  32-bit
    integer arithmetic only, which every IREE target has (Vulkan has no 64-bit integers)."""
    u = _tensor([count], "ui32")
    lines = [f"  %index = stablehlo.iota dim = 0 : {u}"]
    for word in (0, 1):
        lines += [
            f"  %k{word}_1 = stablehlo.slice %key [{word}:{word + 1}] : (tensor<2xui32>) -> "
            "tensor<1xui32>",
            f"  %k{word}_s = stablehlo.reshape %k{word}_1 : (tensor<1xui32>) -> tensor<ui32>",
            f"  %k{word} = stablehlo.broadcast_in_dim %k{word}_s, dims = []"
            f" : (tensor<ui32>) -> {u}",
        ]
    constants = {"golden": 0x9E3779B9, "m1": 0x85EBCA6B, "m2": 0xC2B2AE35, "s16": 16, "s13": 13}
    lines += [f"  %{n} = stablehlo.constant dense<{v}> : {u}" for n, v in constants.items()]
    lines += [
        f"  %spread = stablehlo.multiply %index, %golden : {u}",
        f"  %seeded = stablehlo.add %spread, %k0 : {u}",
    ]
    first, once = _fmix("%seeded", "a", u)
    second, twice = _fmix("%rekeyed", "b", u)
    return [*lines, *first, f"  %rekeyed = stablehlo.xor {once}, %k1 : {u}", *second], twice


def uniform_function(name: str, shape: list[int], element: str) -> str:
    """A private function (key, low, high) -> floats of `shape` uniform in [low, high)."""
    wide = element == "f64"
    bits_shape = [2, *shape] if wide else shape
    count = math.prod(bits_shape)
    bits, result = _tensor(bits_shape, "ui32"), _tensor(shape, element)
    scalar = _tensor([], element)
    hashing, words = _hashed_bits(count)
    lines = [
        f"func.func private @{name}(%key: tensor<2xui32>, %low: {scalar}, %high: {scalar})"
        f" -> {result} {{",
        *hashing,
        f"  %bits = stablehlo.reshape {words} : ({_tensor([count], 'ui32')}) -> {bits}",
        *(_unit_f64(shape) if wide else _unit_narrow(shape, element)),
    ]
    unit = "%unit"
    if element not in ("f32", "f64"):
        lines.append(f"  %narrow = stablehlo.convert %unit : ({_tensor(shape, 'f32')}) -> {result}")
        unit = "%narrow"
    return "\n".join(
        [
            *lines,
            f"  %span = stablehlo.subtract %high, %low : {scalar}",
            f"  %span_b = stablehlo.broadcast_in_dim %span, dims = [] : ({scalar}) -> {result}",
            f"  %low_b = stablehlo.broadcast_in_dim %low, dims = [] : ({scalar}) -> {result}",
            f"  %scaled = stablehlo.multiply {unit}, %span_b : {result}",
            f"  %drawn = stablehlo.add %scaled, %low_b : {result}",
            f"  return %drawn : {result}",
            "}",
        ]
    )


def _rewritable(op: Any) -> bool:
    distribution = str(op.attributes["rng_distribution"])
    shaped = op.results[0].type
    return (
        "UNIFORM" in distribution
        and isinstance(shaped, ir.RankedTensorType)
        and shaped.has_static_shape
        and str(shaped.element_type) in _FLOATS
        and all(str(bound.type) == f"tensor<{shaped.element_type}>" for bound in op.operands[:2])
    )


@register_pass("shlo-hashed-rng")
def hashed_rng(module: Any, options: None) -> None:
    """Draw each float UNIFORM `stablehlo.rng` from a keyed hash, with a key of its own."""
    draws = [op for op in ops_in(module, "stablehlo.rng") if _rewritable(op)]
    if not draws:
        return
    body = module.operation.regions[0].blocks[0]
    made: dict[tuple[tuple[int, ...], str], str] = {}
    with module.context, ir.Location.unknown():
        key_type = ir.RankedTensorType.get([2], ir.IntegerType.get_unsigned(32))
        for index, op in enumerate(draws):
            shaped = op.results[0].type
            signature = (tuple(shaped.shape), str(shaped.element_type))
            if signature not in made:
                made[signature] = f"__shlo_uniform_{len(made)}"
                text = uniform_function(made[signature], list(signature[0]), signature[1])
                parsed = ir.Module.parse(text)
                function = parsed.body.operations[0]
                function.detach_from_parent()
                body.append(function)
            with ir.InsertionPoint(op), op.location:
                words = [(_KEY + index * _STEP) % 2**32, (index * _STEP + _STEP) % 2**32]
                value = ir.Attribute.parse(f"dense<{words}> : tensor<2xui32>")
                key = ir.Operation.create(
                    "stablehlo.constant", results=[key_type], attributes={"value": value}
                )
                # IREE would otherwise evaluate the constant draw while compiling, in a
                # dispatch whose many constants exceed its limit, and slowly for big draws
                kept = ir.Operation.create(
                    "stablehlo.optimization_barrier", results=[key_type], operands=key.results
                )
                call = ir.Operation.create(
                    "func.call",
                    results=[shaped],
                    operands=[kept.results[0], op.operands[0], op.operands[1]],
                    attributes={"callee": ir.FlatSymbolRefAttr.get(made[signature])},
                )
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
