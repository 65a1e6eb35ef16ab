"""The elements of StableHLO constants, and arithmetic on them as LLVM's APInt and APFloat do it.

Upstream's folding passes compute in C++ with `APInt` (two's complement, wrapping) and `APFloat`
(IEEE 754, round to nearest even, its own NaN rules); the folds here must give the same bits.
An element is held as its raw bits (an int; a pair of ints for complex numbers).  Floats
compute in the IEEE-like formats only (f16, bf16, f32, f64, f8E5M2, f8E4M3, f8E3M4), whose
numbers are all exactly doubles: +, -, *, / and fmod run on doubles (f64's are IEEE's own; a
double carries more than twice the precision of the narrower formats, so rounding its result
once more gives the correctly rounded one) and the result is rounded once to the format.  NaN
and the special cases follow APFloat's rules, not the hardware's.  The other formats (FN/FNUZ,
f4, f6) are moved but never computed on, so an op that needs their arithmetic stays.

Constants are read from their printed form (the bindings cannot hand complex attributes to
Python) and written as hex data, which is exact for every element type.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import re
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, cast

from shlo.ir.stablehlo import ir

# Ops with MLIR's ConstantLike trait that StableHLO programs hold (`m_Constant` matches them).
CONSTANT_LIKE = ("stablehlo.constant", "chlo.constant", "arith.constant", "shape.const_shape")


@dataclass(frozen=True)
class FloatFormat:
    """An IEEE 754 binary format with infinities and NaNs, as APFloat's semantics describe it."""

    exponent_bits: int
    fraction_bits: int

    @property
    def width(self) -> int:
        return 1 + self.exponent_bits + self.fraction_bits

    @property
    def bias(self) -> int:
        return (1 << (self.exponent_bits - 1)) - 1

    @property
    def sign_bit(self) -> int:
        return 1 << (self.width - 1)

    @property
    def quiet_bit(self) -> int:
        return 1 << (self.fraction_bits - 1)

    @property
    def top_exponent(self) -> int:
        return (1 << self.exponent_bits) - 1

    def fields(self, bits: int) -> tuple[bool, int, int]:
        return (
            bool(bits & self.sign_bit),
            (bits >> self.fraction_bits) & self.top_exponent,
            bits & ((1 << self.fraction_bits) - 1),
        )

    def is_nan(self, bits: int) -> bool:
        _, exponent, fraction = self.fields(bits)
        return exponent == self.top_exponent and fraction != 0

    def is_inf(self, bits: int) -> bool:
        _, exponent, fraction = self.fields(bits)
        return exponent == self.top_exponent and fraction == 0

    def is_zero(self, bits: int) -> bool:
        return bits & ~self.sign_bit == 0

    def is_negative(self, bits: int) -> bool:
        return bool(bits & self.sign_bit)

    def is_signaling(self, bits: int) -> bool:
        return self.is_nan(bits) and not bits & self.quiet_bit

    def quiet(self, bits: int) -> int:
        """APFloat::makeQuiet: a NaN with its quiet bit set (sign and payload kept)."""
        return bits | self.quiet_bit

    def default_nan(self) -> int:
        """APFloat::makeNaN(): the positive quiet NaN an invalid operation produces."""
        return (self.top_exponent << self.fraction_bits) | self.quiet_bit

    def infinity(self, negative: bool) -> int:
        return (self.top_exponent << self.fraction_bits) | (self.sign_bit if negative else 0)

    def zero(self, negative: bool) -> int:
        return self.sign_bit if negative else 0

    def to_float(self, bits: int) -> float:
        """The value of a non-NaN number as a Python float: exact, every format here fits a
        double."""
        if self.width == 64:
            return cast(float, struct.unpack("<d", bits.to_bytes(8, "little"))[0])
        negative, exponent, fraction = self.fields(bits)
        if exponent == self.top_exponent:
            magnitude = math.inf
        elif exponent == 0:
            magnitude = math.ldexp(fraction, 1 - self.bias - self.fraction_bits)
        else:
            significand = fraction | (1 << self.fraction_bits)
            magnitude = math.ldexp(significand, exponent - self.bias - self.fraction_bits)
        return -magnitude if negative else magnitude

    def from_float(self, value: float) -> int:
        """A non-NaN double rounded to this format (nearest, ties to even; past the largest
        finite number: infinity).  Zeros and infinities keep their sign."""
        if self.width == 64:
            return int.from_bytes(struct.pack("<d", value), "little")
        negative = math.copysign(1.0, value) < 0
        if value == 0:
            return self.zero(negative)
        if math.isinf(value):
            return self.infinity(negative)
        numerator, denominator = abs(value).as_integer_ratio()
        return self.round_ratio(negative, numerator, denominator)

    def encode(self, value: Fraction | int, negative_zero: bool = False) -> int:
        """An exact rational rounded to this format (`negative_zero`: the sign of a zero)."""
        value = Fraction(value)
        if value == 0:
            return self.zero(negative_zero)
        magnitude = abs(value)
        return self.round_ratio(value < 0, magnitude.numerator, magnitude.denominator)

    def round_ratio(self, negative: bool, numerator: int, denominator: int) -> int:
        """numerator/denominator (positive) rounded to nearest, ties to even, with `negative`
        as its sign; past the largest finite number: infinity."""
        exponent = numerator.bit_length() - denominator.bit_length()
        if numerator << max(0, -exponent) < denominator << max(0, exponent):
            exponent -= 1
        exponent = max(exponent, 1 - self.bias)
        shift = self.fraction_bits - exponent
        if shift >= 0:
            quotient, remainder = divmod(numerator << shift, denominator)
            scaled_denominator = denominator
        else:
            scaled_denominator = denominator << -shift
            quotient, remainder = divmod(numerator, scaled_denominator)
        if 2 * remainder > scaled_denominator or (
            2 * remainder == scaled_denominator and quotient & 1
        ):
            quotient += 1
        if quotient >> (self.fraction_bits + 1):
            quotient >>= 1
            exponent += 1
        if exponent > self.bias:
            return self.infinity(negative)
        sign = self.sign_bit if negative else 0
        if quotient >> self.fraction_bits == 0:
            return sign | quotient
        field = exponent + self.bias
        return sign | (field << self.fraction_bits) | (quotient - (1 << self.fraction_bits))


FLOAT_FORMATS = {
    "f16": FloatFormat(5, 10),
    "bf16": FloatFormat(8, 7),
    "f32": FloatFormat(8, 23),
    "f64": FloatFormat(11, 52),
    "f8E5M2": FloatFormat(5, 2),
    "f8E4M3": FloatFormat(4, 3),
    "f8E3M4": FloatFormat(3, 4),
}
F64 = FLOAT_FORMATS["f64"]


@dataclass(frozen=True)
class ElementKind:
    """What an element type is to the folders: `int`, `float`, `complex`, `index` or `other`.

    `width` is the element's bit width (a complex number's: its parts'); `fmt` is the float
    format the folders compute in, None for floats they only move."""

    name: str
    width: int = 0
    unsigned: bool = False
    fmt: FloatFormat | None = None

    @property
    def is_bool(self) -> bool:
        return self.name == "int" and self.width == 1 and not self.unsigned

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def storage_bytes(self) -> int:
        """Bytes an element takes in a dense attribute's data (its parts together)."""
        part = max(1, (self.width + 7) // 8)
        return 2 * part if self.name == "complex" else part


def element_kind(element: Any) -> ElementKind:
    if isinstance(element, ir.IntegerType):
        integer = ir.IntegerType(element)
        return ElementKind("int", integer.width, integer.is_unsigned)
    if isinstance(element, ir.FloatType):
        return ElementKind(
            "float", ir.FloatType(element).width, fmt=FLOAT_FORMATS.get(str(element))
        )
    if isinstance(element, ir.IndexType):
        return ElementKind("index", 64)
    if isinstance(element, ir.ComplexType):
        part = element_kind(ir.ComplexType(element).element_type)
        if part.name == "float":
            return ElementKind("complex", part.width, fmt=part.fmt)
    return ElementKind("other")


def tensor_kind(type_: Any) -> ElementKind:
    return element_kind(ir.ShapedType(type_).element_type)


def num_elements(type_: Any) -> int:
    count = 1
    for size in ir.ShapedType(type_).shape:
        count *= size
    return count


def is_static(type_: Any) -> bool:
    return isinstance(type_, ir.RankedTensorType) and ir.RankedTensorType(type_).has_static_shape


@dataclass
class Elements:
    """The elements of a dense constant: raw bits, one value standing for all when `splat`."""

    type: Any
    values: list[Any]
    splat: bool

    @property
    def kind(self) -> ElementKind:
        return tensor_kind(self.type)

    @property
    def size(self) -> int:
        return num_elements(self.type)

    def all(self) -> list[Any]:
        return self.values * self.size if self.splat else self.values

    def splat_value(self) -> Any:
        return self.values[0]


def producer(value: Any) -> Any:
    """The op that defines `value`; None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def constant_op(value: Any, names: Sequence[str] = CONSTANT_LIKE) -> Any:
    """The constant-like op (one of `names`) that defines `value`, or None."""
    op = producer(value)
    return op if op is not None and op.name in names else None


def read(value: Any, names: Sequence[str] = CONSTANT_LIKE) -> Elements | None:
    """The elements of the dense constant that defines `value` (None for anything else: a
    computed value, a `dense_resource`, an element type the folders do not know)."""
    op = constant_op(value, names)
    if op is None or not isinstance(value.type, ir.RankedTensorType):
        return None
    kind = tensor_kind(value.type)
    if kind.name == "other":
        return None
    return _parse_literal(op, value.type, kind)


_TOKEN = re.compile(r"\([^()]*\)|[^\[\],\s]+")


def _parse_literal(op: Any, type_: Any, kind: ElementKind) -> Elements | None:
    text = op.get_asm(print_generic_op_form=True, skip_regions=True)
    properties = text.find("<{")
    start = text.find(" = dense<", properties)
    if properties < 0 or start < 0:
        return None
    start += len(" = dense<")
    body = text[start : text.index(">", start)]
    size = num_elements(type_)
    if body.startswith('"0x'):
        data = bytes.fromhex(body[3:-1])
        step = kind.storage_bytes
        values = [_from_bytes(data[i : i + step], kind) for i in range(0, len(data), step)]
    else:
        try:
            values = [_from_token(token, kind, type_) for token in _TOKEN.findall(body)]
        except (ValueError, ZeroDivisionError):
            return None
    if any(value is None for value in values):
        return None
    if len(values) == 1 and size != 1:
        return Elements(type_, values, True)
    if len(values) != size:
        return None
    return Elements(type_, values, size == 1)


def _from_bytes(chunk: bytes, kind: ElementKind) -> Any:
    if kind.name == "complex":
        half = len(chunk) // 2
        return (
            int.from_bytes(chunk[:half], "little") & kind.mask,
            int.from_bytes(chunk[half:], "little") & kind.mask,
        )
    return int.from_bytes(chunk, "little") & kind.mask


def _from_token(token: str, kind: ElementKind, type_: Any) -> Any:
    if kind.name in ("int", "index"):
        if token in ("true", "false"):
            return int(token == "true")
        return int(token) & kind.mask
    if kind.name == "complex":
        real, imag = token.strip("()").split(",")
        return (_float_bits(real, kind, type_), _float_bits(imag, kind, type_))
    return _float_bits(token, kind, type_)


def _float_bits(token: str, kind: ElementKind, type_: Any) -> int | None:
    token = token.strip()
    if token.lower().startswith("0x"):
        return int(token, 16) & kind.mask
    if kind.fmt is not None:
        value = Fraction(token)
        return kind.fmt.encode(value, negative_zero=token.startswith("-"))
    return _bits_by_mlir(token, ir.ShapedType(type_).element_type)


def _bits_by_mlir(token: str, element: Any) -> int | None:
    """The bits of a decimal float literal of a format without Python arithmetic: MLIR parses
    it beside 100 zero bit patterns and prints the 101 elements as hex data (or, where the
    literal's bits are zero too, as a splat)."""
    literals = ", ".join([token] + ["0x0"] * 100)
    text = str(ir.Attribute.parse(f"dense<[{literals}]> : tensor<101x{element}>"))
    if not text.startswith('dense<"0x'):
        return 0
    data = bytes.fromhex(text[len('dense<"0x') : text.index('"', len('dense<"0x'))])
    kind = element_kind(element)
    return cast("int | None", _from_bytes(data[: kind.storage_bytes], kind))


def attribute_text(type_: Any, values: Sequence[Any]) -> str:
    """A dense attribute of `type_` holding `values` (raw bits; one value: a splat)."""
    if num_elements(type_) == 0:
        return f"dense<> : {type_}"
    kind = tensor_kind(type_)
    if len(values) > 1 and all(value == values[0] for value in values):
        values = values[:1]
    step = max(1, (kind.width + 7) // 8)
    chunks: list[bytes] = []
    for value in values:
        parts = value if kind.name == "complex" else (value,)
        chunks.extend((part & kind.mask).to_bytes(step, "little") for part in parts)
    return f'dense<"0x{b"".join(chunks).hex().upper()}"> : {type_}'


def constant(type_: Any, values: Sequence[Any]) -> Any:
    """A new `stablehlo.constant` of `type_` holding `values`, at the current insertion point
    and location.  Complex constants are parsed as an op: the bindings cannot hand a complex
    attribute to Python."""
    text = attribute_text(type_, values)
    if tensor_kind(type_).name != "complex":
        return ir.Operation.create(
            "stablehlo.constant", results=[type_], attributes={"value": ir.Attribute.parse(text)}
        )
    op = ir.Operation.parse(
        f'"stablehlo.constant"() <{{value = {text}}}> : () -> {type_} {ir.Location.current}'
    )
    ir.InsertionPoint.current.insert(op)
    return op


def splat_constant(type_: Any, value: Any) -> Any:
    return constant(type_, [value])


def zero_bits(kind: ElementKind) -> Any:
    return (0, 0) if kind.name == "complex" else 0


# ---------------------------------------------------------------------------------------------
# APInt: n-bit two's complement integers, held as their unsigned bits.


def signed(bits: int, width: int) -> int:
    return bits - (1 << width) if bits >> (width - 1) & 1 else bits


def wrap(value: int, width: int) -> int:
    return value & ((1 << width) - 1)


def trunc_div(a: int, b: int) -> int:
    """C's integer division: the quotient rounded toward zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


# ---------------------------------------------------------------------------------------------
# APFloat: IEEE arithmetic with round to nearest even and APFloat's NaN rules (the first NaN
# operand, quieted, keeps its sign; an invalid operation gives the positive default NaN).


def _nan_operand(fmt: FloatFormat, a: int, b: int) -> int | None:
    if fmt.is_nan(a):
        return fmt.quiet(a)
    if fmt.is_nan(b):
        return fmt.quiet(b)
    return None


def float_add(fmt: FloatFormat, a: int, b: int, subtract: bool = False) -> int:
    nan = _nan_operand(fmt, a, b)
    if nan is not None:
        return nan
    b_negative = fmt.is_negative(b) != subtract
    if fmt.is_inf(a) or fmt.is_inf(b):
        if fmt.is_inf(a) and fmt.is_inf(b) and fmt.is_negative(a) != b_negative:
            return fmt.default_nan()
        return a if fmt.is_inf(a) else fmt.infinity(b_negative)
    x, y = fmt.to_float(a), fmt.to_float(b)
    return fmt.from_float(x - y if subtract else x + y)


def float_multiply(fmt: FloatFormat, a: int, b: int) -> int:
    nan = _nan_operand(fmt, a, b)
    if nan is not None:
        return nan
    if (fmt.is_inf(a) and fmt.is_zero(b)) or (fmt.is_zero(a) and fmt.is_inf(b)):
        return fmt.default_nan()
    return fmt.from_float(fmt.to_float(a) * fmt.to_float(b))


def float_divide(fmt: FloatFormat, a: int, b: int) -> int:
    nan = _nan_operand(fmt, a, b)
    if nan is not None:
        return nan
    negative = fmt.is_negative(a) != fmt.is_negative(b)
    if fmt.is_inf(a):
        return fmt.default_nan() if fmt.is_inf(b) else fmt.infinity(negative)
    if fmt.is_zero(b):
        return fmt.default_nan() if fmt.is_zero(a) else fmt.infinity(negative)
    return fmt.from_float(fmt.to_float(a) / fmt.to_float(b))


def float_mod(fmt: FloatFormat, a: int, b: int) -> int:
    """APFloat::mod: C's fmod, exact, the result's sign the dividend's."""
    nan = _nan_operand(fmt, a, b)
    if nan is not None:
        return nan
    if fmt.is_inf(a) or fmt.is_zero(b):
        return fmt.default_nan()
    if fmt.is_inf(b) or fmt.is_zero(a):
        return a
    return fmt.from_float(math.fmod(fmt.to_float(a), fmt.to_float(b)))


def float_compare(fmt: FloatFormat, a: int, b: int) -> str:
    """APFloat::compare: `lt`, `eq`, `gt` or `unordered`."""
    if fmt.is_nan(a) or fmt.is_nan(b):
        return "unordered"
    x, y = fmt.to_float(a), fmt.to_float(b)
    return "lt" if x < y else "gt" if x > y else "eq"


def float_maximum(fmt: FloatFormat, a: int, b: int) -> int:
    """llvm::maximum: NaN propagates (quieted), -0 < +0."""
    nan = _nan_operand(fmt, a, b)
    if nan is not None:
        return nan
    if fmt.is_zero(a) and fmt.is_zero(b) and fmt.is_negative(a) != fmt.is_negative(b):
        return b if fmt.is_negative(a) else a
    return b if float_compare(fmt, a, b) == "lt" else a


def float_minimum(fmt: FloatFormat, a: int, b: int) -> int:
    """llvm::minimum: NaN propagates (quieted), -0 < +0."""
    nan = _nan_operand(fmt, a, b)
    if nan is not None:
        return nan
    if fmt.is_zero(a) and fmt.is_zero(b) and fmt.is_negative(a) != fmt.is_negative(b):
        return a if fmt.is_negative(a) else b
    return b if float_compare(fmt, b, a) == "lt" else a


def round_to_integral(fmt: FloatFormat, bits: int, ties_away: bool) -> int:
    """APFloat::roundToIntegral with rmNearestTiesToAway or rmNearestTiesToEven."""
    if fmt.is_nan(bits):
        return fmt.quiet(bits)
    if fmt.is_inf(bits) or fmt.is_zero(bits):
        return bits
    value = fmt.to_float(bits)
    whole = math.floor(abs(value))
    rest = abs(value) - whole
    if rest > 0.5 or (rest == 0.5 and (ties_away or whole & 1)):
        whole += 1
    return fmt.encode(-whole if value < 0 else whole, negative_zero=value < 0)


def convert_float(source: FloatFormat, target: FloatFormat, bits: int) -> tuple[int, bool]:
    """APFloat::convert with round to nearest even: the new bits, and whether the conversion
    was invalid (a signaling NaN, which comes out quieted)."""
    if source.is_nan(bits):
        negative, _, fraction = source.fields(bits)
        shift = target.fraction_bits - source.fraction_bits
        fraction = fraction << shift if shift >= 0 else fraction >> -shift
        result = (target.top_exponent << target.fraction_bits) | fraction
        result |= target.sign_bit if negative else 0
        signaling = source.is_signaling(bits)
        return (target.quiet(result) if signaling else result), signaling
    return target.from_float(source.to_float(bits)), False


def float_to_int(fmt: FloatFormat, bits: int, width: int, unsigned: bool) -> int | None:
    """APFloat::convertToInteger toward zero: the bits, or None where it reports invalid."""
    if fmt.is_nan(bits) or fmt.is_inf(bits):
        return None
    whole = math.trunc(fmt.to_float(bits))
    low, high = (0, (1 << width) - 1) if unsigned else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
    if not low <= whole <= high:
        return None
    return wrap(whole, width)


def to_double(fmt: FloatFormat, bits: int) -> float:
    double_bits, _ = convert_float(fmt, F64, bits)
    return cast(float, struct.unpack("<d", double_bits.to_bytes(8, "little"))[0])


def from_double(fmt: FloatFormat, value: float) -> int:
    double_bits = int.from_bytes(struct.pack("<d", value), "little")
    return convert_float(F64, fmt, double_bits)[0]


@lru_cache(maxsize=1)
def libm() -> ctypes.CDLL:
    """The C math library: upstream folds transcendental functions with `std::cos` and the
    like, so the same functions give the same doubles (NaN signs included)."""
    library = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    for name in ("cos", "sin", "tan", "tanh", "exp", "log", "erf", "sqrt"):
        function = getattr(library, name)
        function.restype = ctypes.c_double
        function.argtypes = [ctypes.c_double]
    return library


def c_math(name: str, value: float) -> float:
    """The C library's double function `name` (cos, sin, tan, tanh, exp, log, erf, sqrt)."""
    return cast(float, getattr(libm(), name)(value))


def region_block(op: Any, index: int = 0) -> Any:
    """The one block of `op`'s region `index` (a reduce's or a while's body)."""
    return op.regions[index].blocks[0]


def block_terminator(block: Any) -> Any:
    return list(block.operations)[-1].operation


def defined_in(value: Any, block: Any) -> bool:
    """Whether `value` is an argument of `block` or the result of an op directly in it."""
    if isinstance(value.owner, ir.Block):
        return cast(bool, value.owner == block)
    return cast(bool, value.owner.operation.block == block)
