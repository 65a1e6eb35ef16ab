"""`shlo-trig-range-reduction`: `sine`, `cosine` and `tan` of any argument, reduced exactly.

IREE 3.13 reduces the argument of its sine, cosine and tan by pi/2 in the argument's own
precision, which holds only for small arguments: `tan(1e10)` came out 45.2 instead of -0.558,
and large arguments gave NaN or infinity where C's functions (and so PyTorch and NumPy) give
the function of the exact value.  Its functions of a small negative argument are also off by
about 6e-8 (`sin(-1e-30)`), since they compute near zero with an absolute error.  This pass
reduces `|x|` by pi/2 exactly, as Payne and Hanek do, in ops of the argument's own type (so it
holds where IREE demotes f64, and on Vulkan):

- `|x| * 2/pi` is summed modulo 4 from exact products: `|x|` cut to half its bits and the
  rest, 2/pi in chunks of as many bits, each product less a multiple of 4 (exact), the terms
  added on three fixed grids so that no bit near the binary point is rounded away;
- the nearest quadrant `k` and the remainder `r` (`|r| <= pi/4`) come out of that sum; the
  result is IREE's function of `|r|` (or of `|x|` itself up to pi/4), moved to quadrant `k`
  with the signs of `r` and `x`.

f16 and bf16 are reduced in f32; `types` names the element types reduced (IREE's Vulkan
target cannot load the f64 reduction: it passes its many f64 constants as push constants,
past the device's limit).  Ops on dynamically shaped tensors are left as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from shlo.ir.edit import create, ops_in
from shlo.ir.elementwise import Elementwise, compare, static_float
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

NAMES = ("stablehlo.sine", "stablehlo.cosine", "stablehlo.tan")


@dataclass(frozen=True)
class Format:
    """How a float type is reduced: its `bits` of precision, and its largest and smallest
    normal binary exponents."""

    bits: int
    max_exponent: int
    min_exponent: int

    @property
    def chunk(self) -> int:
        """Bits of 2/pi per chunk: `|x|` rounded to `bits - chunk` bits, and the rest, times a
        chunk are exact products."""
        return self.bits // 2

    @property
    def count(self) -> int:
        """Chunks enough to reduce the largest value with the precision of a result near 0."""
        return -(-(self.max_exponent + 3 * self.bits + 8) // self.chunk)

    @property
    def scale(self) -> int:
        """A power of two by which `|x|`'s halves are scaled down and the chunks up: the last
        chunk stays a normal number, and so does the smaller half of any `|x|` from 1/2 on
        (a subnormal would be flushed to zero)."""
        return self.count * self.chunk + self.min_exponent + 4

    @property
    def grid(self) -> float:
        """The finest grid on which the terms and sums near the binary point stay exact."""
        return 2.0 ** -(self.bits - 3)

    def chunks(self) -> list[float]:
        """2/pi in `count` chunks of `chunk` bits, each scaled up by 2**`scale`."""
        total = self.count * self.chunk
        bits = _two_over_pi(total)
        mask = 2**self.chunk - 1
        return [
            math.ldexp((bits >> (total - end)) & mask, self.scale - end)
            for end in range(self.chunk, total + 1, self.chunk)
        ]


FORMATS = {"f32": Format(24, 128, -126), "f64": Format(53, 1024, -1022)}


def _two_over_pi(bits: int) -> int:
    """floor(2/pi * 2**bits), from Machin's formula in integers."""
    guard = bits + 64
    one = 1 << guard

    def arctan_inverse(n: int) -> int:
        total, term, k, sign = 0, one // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k, sign = k + 2, -sign
        return total

    pi = 16 * arctan_inverse(5) - 4 * arctan_inverse(239)
    return (2 << (guard + bits)) // pi


@dataclass(frozen=True)
class TrigOptions:
    types: tuple[str, ...] = field(
        default=("f16", "bf16", "f32", "f64"), metadata={"help": "the element types to reduce"}
    )


def _reduced(op: Any, types: tuple[str, ...]) -> None:
    if not static_float(op.results[0]):
        return
    element = str(ir.RankedTensorType(op.results[0].type).element_type)
    if element not in types:
        return
    form = FORMATS.get(element, FORMATS["f32"])
    (x,) = op.operands
    if element not in FORMATS:
        wider = ir.RankedTensorType.get(ir.RankedTensorType(x.type).shape, ir.F32Type.get())
        x = create("stablehlo.convert", wider, [x])
    build = Elementwise(x)
    magnitude = build.unary("abs", x)
    quadrant, remainder = _reduce(build, magnitude, form)
    small = compare("LE", magnitude, build.constant(math.pi / 4))
    r = build.select(small, magnitude, remainder)
    k = build.select(small, build.constant(0.0), quadrant)
    odd = compare("EQ", _mod(build, k, 2.0), build.constant(1.0))
    # IREE's functions of a small negative argument are off: they get |r|, its sign is
    # applied here
    below, r = build.negative(r), build.unary("abs", r)
    if op.name == "stablehlo.tan":
        t = build.unary("tan", r)
        reciprocal = build.binary("divide", build.constant(-1.0), t)
        value = build.select(odd, reciprocal, t)
        flip = build.binary("xor", below, build.negative(x))
    elif op.name == "stablehlo.sine":
        value = build.select(odd, build.unary("cosine", r), build.unary("sine", r))
        lower = compare("GE", k, build.constant(2.0))
        own = build.binary("and", below, build.unary("not", odd))
        flip = build.binary("xor", build.binary("xor", lower, build.negative(x)), own)
    else:
        value = build.select(odd, build.unary("sine", r), build.unary("cosine", r))
        middle = build.binary(
            "or", compare("EQ", k, build.constant(1.0)), compare("EQ", k, build.constant(2.0))
        )
        flip = build.binary("xor", middle, build.binary("and", below, odd))
    result = build.select(flip, build.unary("negate", value), value)
    if element not in FORMATS:
        result = create("stablehlo.convert", op.results[0].type, [result])
    op.results[0].replace_all_uses_with(result)
    op.erase()


def _mod(build: Elementwise, value: Any, modulus: float) -> Any:
    """`value` modulo a power of two, in [0, modulus): exact for a `value` on a grid it keeps."""
    scaled = build.binary("multiply", value, build.constant(1 / modulus))
    whole = build.binary("multiply", build.unary("floor", scaled), build.constant(modulus))
    return build.binary("subtract", value, whole)


def _remainder(build: Elementwise, value: Any) -> Any:
    """`value` less a multiple of 4 toward zero, in (-4, 4): exact for either sign, where
    `_mod` of a small negative value would round."""
    quarter = build.binary("multiply", value, build.constant(0.25))
    whole = build.select(
        compare("LT", value, build.constant(0.0)),
        build.unary("ceil", quarter),
        build.unary("floor", quarter),
    )
    return build.binary("subtract", value, build.binary("multiply", whole, build.constant(4.0)))


def _truncate(build: Elementwise, value: Any, grid: float) -> Any:
    """`value` rounded down to a multiple of the power of two `grid`, exactly."""
    steps = build.unary("floor", build.binary("multiply", value, build.constant(1 / grid)))
    return build.binary("multiply", steps, build.constant(grid))


def _halves(build: Elementwise, magnitude: Any, form: Format) -> tuple[Any, Any]:
    """`magnitude` as its leading `bits - chunk` bits and the rest, each scaled down by
    2**`scale`.  Cut at a power of two found by comparisons: a multiply-and-subtract split
    (Veltkamp's) breaks where IREE fuses the two, and rounding by bits
    (`reduce_precision`) fails on Vulkan, whose f64 cannot be read as i64 there."""
    # (direction, bound, factor): brought to [1, 2) for magnitudes from 1/2 on
    exponents = range((form.max_exponent - 1).bit_length() - 1, -1, -1)
    scalings = [("GE", 2.0**2**n, 2.0 ** -(2**n)) for n in exponents] + [("LT", 1.0, 2.0)]
    normal, taken = magnitude, []
    for direction, bound, factor in scalings:
        take = compare(direction, normal, build.constant(bound))
        scaled = build.binary("multiply", normal, build.constant(factor))
        normal = build.select(take, scaled, normal)
        taken.append(take)
    high = _truncate(build, normal, 2.0 ** -(form.bits - form.chunk - 1))
    halves = []
    for half in (high, build.binary("subtract", normal, high)):
        half = build.binary("multiply", half, build.constant(2.0**-form.scale))
        for (_, _, factor), take in zip(scalings, taken, strict=True):
            back = build.binary("multiply", half, build.constant(1 / factor))
            half = build.select(take, back, half)
        halves.append(half)
    return halves[0], halves[1]


def _reduce(build: Elementwise, magnitude: Any, form: Format) -> tuple[Any, Any]:
    """The quadrant (0 to 3, as a float) and the remainder in [-pi/4, pi/4] of `magnitude`."""
    halves = _halves(build, magnitude, form)
    coarse, fine = form.grid, form.grid**2
    whole = middle = low = build.constant(0.0)
    for chunk in form.chunks():
        for half in halves:
            term = _remainder(build, build.binary("multiply", half, build.constant(chunk)))
            top = _truncate(build, term, coarse)
            rest = build.binary("subtract", term, top)
            mid = _truncate(build, rest, fine)
            low = build.binary("add", low, build.binary("subtract", rest, mid))
            middle = build.binary("add", middle, mid)
            carry = _truncate(build, middle, coarse)
            middle = build.binary("subtract", middle, carry)
            whole = _mod(
                build,
                build.binary("add", _mod(build, build.binary("add", whole, top), 4.0), carry),
                4.0,
            )
    tail = build.binary("add", middle, low)
    nearest = build.unary(
        "floor", build.binary("add", build.binary("add", whole, tail), build.constant(0.5))
    )
    units = build.binary(
        "add", build.binary("add", build.binary("subtract", whole, nearest), middle), low
    )
    remainder = build.binary("multiply", units, build.constant(math.pi / 2))
    return _mod(build, nearest, 4.0), remainder


@register_pass("shlo-trig-range-reduction", options=TrigOptions)
def trig_range_reduction(module: Any, options: TrigOptions) -> None:
    """Reduce the arguments of `sine`, `cosine` and `tan` by pi/2 exactly."""
    with module.context:
        for op in [op for op in ops_in(module) if op.name in NAMES]:  # not the ops made here
            with ir.InsertionPoint(op), op.location:
                _reduced(op, options.types)
