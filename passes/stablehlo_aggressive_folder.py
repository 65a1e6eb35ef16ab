"""`stablehlo-aggressive-folder`: upstream StableHLO's folding pass, which the wheels lack.

openxla/stablehlo registers it in stablehlo-opt only (stablehlo/transforms/optimization/
StablehloAggressiveFolder.cpp at 7b1b157, StableHLO 1.19.0), so neither the bindings nor the
wheels' tools have it.  This is the same pattern set, pattern for pattern in upstream's order,
run by MLIR's own greedy driver on each function (which also folds, hoists and deduplicates
constants and erases dead ops, as upstream's run does), with upstream's three options.

Folds compute what upstream's `APInt`/`APFloat` code computes (`stablehlo_elements`): integer
arithmetic wraps, integer division or remainder by zero stays, float folds of the "shape"
patterns need `optimize-float`, results over `fold-op-element-limit` elements stay where
upstream checks that limit.  Where an element type's arithmetic is not implemented here (the
FN/FNUZ float formats, f4, f6), or upstream would build invalid IR or abort, the op stays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from shlo.ir.stablehlo import ir, rewrite
from shlo.passes.stablehlo_elements import (
    ElementKind,
    Elements,
    block_terminator,
    c_math,
    constant,
    convert_float,
    defined_in,
    float_add,
    float_compare,
    float_divide,
    float_maximum,
    float_minimum,
    float_mod,
    float_multiply,
    float_to_int,
    from_double,
    is_static,
    num_elements,
    read,
    region_block,
    round_to_integral,
    signed,
    splat_constant,
    tensor_kind,
    to_double,
    trunc_div,
    wrap,
    zero_bits,
)
from shlo.pipeline.python_pass import PassFailure, register_pass

# Pattern = fn(op, rewriter, options) -> whether it rewrote; upstream's order is the list order.
Pattern = Callable[[Any, Any, Any], bool]


class Boolean(int):
    """A boolean pass option parsed as LLVM's `cl::opt<bool>` parses it."""

    def __new__(cls, text: str) -> Boolean:
        if text in ("", "true", "TRUE", "True", "1"):
            return super().__new__(cls, 1)
        if text in ("false", "FALSE", "False", "0"):
            return super().__new__(cls, 0)
        raise ValueError(f"'{text}' is invalid value for boolean argument! Try 0 or 1")


class Int64(int):
    """An `int64_t` pass option parsed as LLVM's `StringRef::getAsInteger(0, ...)` parses it:
    decimal, 0x hex, 0b binary, 0o or leading-0 octal, an optional minus sign."""

    def __new__(cls, text: str) -> Int64:
        negative = text.startswith("-")
        digits = text[1:] if negative else text
        radix = 10
        if digits[:2] in ("0x", "0X", "0b", "0B", "0o"):
            radix, digits = {"x": 16, "b": 2, "o": 8}[digits[1].lower()], digits[2:]
        elif len(digits) > 1 and digits[0] == "0" and digits[1].isdigit():
            radix, digits = 8, digits[1:]
        valid = "0123456789abcdef"[:radix]
        if not digits or any(c not in valid for c in digits.lower()):
            raise ValueError(f"'{text}' value invalid for long argument!")
        value = int(digits, radix) * (-1 if negative else 1)
        if not -(1 << 63) <= value < 1 << 63:
            raise ValueError(f"'{text}' value invalid for long argument!")
        return super().__new__(cls, value)


# The help text of fold-op-element-limit, which every StableHLO optimization pass takes.
FOLD_OP_ELEMENT_LIMIT_HELP = (
    "Folding an op into a constant can sometimes come at the cost of memory overhead. (This "
    "occurs if the op's inputs are reused, meaning that they can't be deleted after the op is "
    "folded to a constant, or when folding operations like `concat` whose outputs take up more "
    "memory than their inputs.) In such cases, this config option sets an upper limit on how "
    "many elements an op's result may have before the op is no longer folded. Splat folds are "
    "exempt from this limit."
)


@dataclass(frozen=True)
class OptimizationOptions:
    """The options of upstream's StableHLO optimization passes (Passes.td), with its help."""

    assume_no_undeclared_side_effects: Boolean = field(
        default=Boolean("false"),
        metadata={
            "help": "Allow dead code to be eliminated in some situations (e.g. dead while loops) "
            "under the assumption that ops are pure unless declared with explicit MLIR "
            "`MemoryEffects`. Notably, this means `func.call` ops will be assumed pure."
        },
    )
    fold_op_element_limit: Int64 = field(
        default=Int64("65536"), metadata={"help": FOLD_OP_ELEMENT_LIMIT_HELP}
    )
    optimize_float: Boolean = field(
        default=Boolean("true"),
        metadata={
            "help": "Allow float optimizations that, though mathematically equivalent, may result "
            "in slightly different quantization of floating-point values (e.g. `log(sqrt(x))` -> "
            "`0.5 * log(x)`). Float optimizations that can't affect numerical results are always "
            "enabled."
        },
    )


# ---------------------------------------------------------------------------------------------
# Driving the patterns


def add_patterns(
    patterns: Any, roots: Iterable[tuple[str, Pattern]], options: Any, benefit: int
) -> None:
    """Add `(root op name, pattern)` pairs to a RewritePatternSet in order."""
    for root, pattern in roots:
        patterns.add(root, _matcher(pattern, options), benefit=benefit)


def _matcher(pattern: Pattern, options: Any) -> Callable[[Any, Any], bool]:
    """The callable the bindings take (a falsy return means "matched and rewrote"); the op's
    location is the default one (types are made with a location for their diagnostics)."""

    def match(op: Any, rewriter: Any) -> bool:
        with op.location:
            return not pattern(op.operation, rewriter, options)

    return match


def run_on_functions(module: Any, build: Callable[[], Any]) -> None:
    """Apply a pattern set greedily to each top-level `func.func`, as upstream's func-anchored
    pass does; `build` makes the RewritePatternSet.  The driver does not hear of the ops a
    Python pattern creates (upstream's does), so it may need more rounds than upstream's ten to
    reach the same fixed point: it gets 100, and failing to converge fails the pass, as there."""
    config = rewrite.GreedyRewriteConfig()
    config.max_iterations = 100
    frozen = build().freeze()
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name != "func.func":
            continue
        try:
            rewrite.apply_patterns_and_fold_greedily(op.operation, frozen, config)
        except RuntimeError as error:
            if "failed to converge" not in str(error):
                raise
            raise PassFailure("the patterns did not converge", op.operation) from None


def replace_with_constant(op: Any, rewriter: Any, type_: Any, values: list[Any]) -> bool:
    """rewriter.replaceOpWithNewOp<ConstantOp>: a constant of `type_` before `op`."""
    with rewriter.ip, op.location:
        new = constant(type_, values)
    rewriter.replace_op(op, new)
    return True


def replace_with_elements(op: Any, rewriter: Any, elements: Elements) -> bool:
    return replace_with_constant(op, rewriter, elements.type, elements.values)


def result_type(op: Any) -> Any:
    return op.results[0].type


def element_of(type_: Any) -> Any:
    return ir.ShapedType(type_).element_type


def exceeds_limit(type_: Any, options: Any) -> bool:
    """validateElementCountForFold: the count against the limit as a size_t."""
    return num_elements(type_) > options.fold_op_element_limit % (1 << 64)


def shape_fold_dtype(type_: Any, options: Any, allow_complex: bool = False) -> bool:
    """validateShapeFoldDtype: integers always, floats (and complex) with optimize-float."""
    element = element_of(type_)
    if isinstance(element, ir.IntegerType):
        return True
    floating = isinstance(element, ir.FloatType) or (
        allow_complex and isinstance(element, ir.ComplexType)
    )
    return bool(options.optimize_float) and floating


def has_no_uses(op: Any) -> bool:
    return all(not list(result.uses) for result in op.results)


# ---------------------------------------------------------------------------------------------
# Constant folding of elementwise ops (CommonFolders' constFoldBinaryOp / constFoldUnaryOp)

IntBinary = Callable[[int, int, ElementKind], "int | None"]
FloatBinary = Callable[[Any, int, int], "int | None"]


def fold_binary(
    op: Any, type_: Any, int_fn: IntBinary | None, float_fn: FloatBinary | None
) -> Elements | None:
    """Both operands constant and of one type: `type_`'s elements, element by element (once
    for two splats); None where an element does not fold or the type is not computed on."""
    lhs, rhs = read(op.operands[0]), read(op.operands[1])
    if lhs is None or rhs is None or lhs.type != rhs.type or not is_static(type_):
        return None
    kind = lhs.kind
    compute: Callable[[int, int], int | None]
    if kind.name == "int" and int_fn is not None:
        compute = lambda a, b: int_fn(a, b, kind)  # noqa: E731
    elif kind.name == "float" and kind.fmt is not None and float_fn is not None:
        compute = lambda a, b: float_fn(kind.fmt, a, b)  # noqa: E731
    else:
        return None
    if lhs.splat and rhs.splat:
        pairs = [(lhs.splat_value(), rhs.splat_value())]
    else:
        pairs = list(zip(lhs.all(), rhs.all(), strict=True))
    values = [compute(a, b) for a, b in pairs]
    if any(value is None for value in values):
        return None
    return Elements(type_, values, len(values) == 1 and num_elements(type_) != 1)


def binary_pattern(
    int_fn: Callable[[Any, Any], IntBinary | None],
    float_fn: FloatBinary | None,
    dtype_check: bool = True,
) -> Pattern:
    """A ShapeOpRewritePattern over foldBinaryOpIntOrFloat; `int_fn(op, kind)` picks the
    integer function by the op's result element (None: no integer fold)."""

    def pattern(op: Any, rewriter: Any, options: Any) -> bool:
        type_ = result_type(op)
        if dtype_check and not shape_fold_dtype(type_, options):
            return False
        kind = tensor_kind(type_)
        folded = fold_binary(op, type_, int_fn(op, kind), float_fn)
        return folded is not None and replace_with_elements(op, rewriter, folded)

    return pattern


def _add(a: int, b: int, kind: ElementKind) -> int:
    return wrap(a + b, kind.width)


def _subtract(a: int, b: int, kind: ElementKind) -> int:
    return wrap(a - b, kind.width)


def _multiply(a: int, b: int, kind: ElementKind) -> int:
    return wrap(a * b, kind.width)


def _and(a: int, b: int, kind: ElementKind) -> int:
    return a & b


def _or(a: int, b: int, kind: ElementKind) -> int:
    return a | b


def _xor(a: int, b: int, kind: ElementKind) -> int:
    return a ^ b


def _udiv(a: int, b: int, kind: ElementKind) -> int:
    return a // b


def _sdiv(a: int, b: int, kind: ElementKind) -> int:
    return wrap(trunc_div(signed(a, kind.width), signed(b, kind.width)), kind.width)


def _urem(a: int, b: int, kind: ElementKind) -> int:
    return a % b


def _srem(a: int, b: int, kind: ElementKind) -> int:
    x, y = signed(a, kind.width), signed(b, kind.width)
    return wrap(x - trunc_div(x, y) * y, kind.width)


def _umax(a: int, b: int, kind: ElementKind) -> int:
    return max(a, b)


def _umin(a: int, b: int, kind: ElementKind) -> int:
    return min(a, b)


def _smax(a: int, b: int, kind: ElementKind) -> int:
    return a if signed(a, kind.width) >= signed(b, kind.width) else b


def _smin(a: int, b: int, kind: ElementKind) -> int:
    return a if signed(a, kind.width) <= signed(b, kind.width) else b


def _float_subtract(fmt: Any, a: int, b: int) -> int:
    return float_add(fmt, a, b, subtract=True)


def _same(fn: IntBinary) -> Callable[[Any, Any], IntBinary]:
    return lambda op, kind: fn


def _by_signedness(unsigned: IntBinary, signed_fn: IntBinary, bool_is_unsigned: bool) -> Any:
    """The unsigned function for unsigned results (and i1 where `bool_is_unsigned`)."""

    def pick(op: Any, kind: ElementKind) -> IntBinary:
        use_unsigned = kind.unsigned or (bool_is_unsigned and kind.is_bool)
        return unsigned if use_unsigned else signed_fn

    return pick


def _integer_divisor_has_zero(op: Any) -> bool:
    divisor = read(op.operands[1])
    return divisor is not None and divisor.kind.name == "int" and 0 in divisor.values


def _no_zero_divisor(pattern: Pattern) -> Pattern:
    """Integer division and remainder by zero are never folded (APInt would abort)."""

    def guarded(op: Any, rewriter: Any, options: Any) -> bool:
        integer = isinstance(element_of(result_type(op)), ir.IntegerType)
        if integer and _integer_divisor_has_zero(op):
            return False
        return pattern(op, rewriter, options)

    return guarded


fold_add = binary_pattern(_same(_add), float_add)
fold_subtract = binary_pattern(_same(_subtract), _float_subtract)
fold_multiply = binary_pattern(_same(_multiply), float_multiply)
fold_divide = _no_zero_divisor(binary_pattern(_by_signedness(_udiv, _sdiv, False), float_divide))
fold_remainder = _no_zero_divisor(binary_pattern(_by_signedness(_urem, _srem, False), float_mod))
fold_maximum = binary_pattern(_by_signedness(_umax, _smax, True), float_maximum)
fold_minimum = binary_pattern(_by_signedness(_umin, _smin, True), float_minimum)
# and/or/xor fold integers only (logically for i1, bitwise otherwise: the same bits).
fold_and = binary_pattern(_same(_and), None, dtype_check=False)
fold_or = binary_pattern(_same(_or), None, dtype_check=False)
fold_xor = binary_pattern(_same(_xor), None, dtype_check=False)


def _comparison_type(op: Any) -> str | None:
    """The compare's type attribute, else the one StableHLO's spec assumes."""
    if "compare_type" in op.attributes:
        kind = str(op.attributes["compare_type"]).split()[-1].rstrip(">")
        if kind != "NOTYPE":
            return kind
    element = element_of(op.operands[0].type)
    if isinstance(element, ir.IntegerType):
        integer = ir.IntegerType(element)
        return "UNSIGNED" if integer.is_unsigned or integer.width == 1 else "SIGNED"
    if isinstance(element, ir.FloatType) or isinstance(element, ir.ComplexType):
        return "FLOAT"
    return None


_ORDERS = {
    "EQ": ("eq",),
    "NE": ("lt", "gt", "unordered"),
    "GE": ("gt", "eq"),
    "GT": ("gt",),
    "LE": ("lt", "eq"),
    "LT": ("lt",),
}


def fold_compare(op: Any, rewriter: Any, options: Any) -> bool:
    """FoldCompareOpPattern: floats compare as IEEE (also for TOTALORDER, as upstream)."""
    type_ = result_type(op)
    if not shape_fold_dtype(type_, options):
        return False
    comparison = _comparison_type(op)
    direction = str(op.attributes["comparison_direction"]).split()[-1].rstrip(">")
    if comparison is None:
        return False
    wanted = _ORDERS[direction]
    operand = tensor_kind(op.operands[0].type)
    if operand.name == "int" and comparison not in ("SIGNED", "UNSIGNED"):
        return False  # upstream aborts: "invalid integer comparison"
    if operand.name == "float" and comparison not in ("FLOAT", "TOTALORDER"):
        return False  # upstream aborts: "invalid float comparison"

    def integers(a: int, b: int, kind: ElementKind) -> int:
        if comparison == "SIGNED":
            a, b = signed(a, kind.width), signed(b, kind.width)
        order = "lt" if a < b else "gt" if a > b else "eq"
        return int(order in wanted)

    def floats(fmt: Any, a: int, b: int) -> int:
        return int(float_compare(fmt, a, b) in wanted)

    folded = fold_binary(op, type_, integers, floats)
    return folded is not None and replace_with_elements(op, rewriter, folded)


def fold_clamp(op: Any, rewriter: Any, options: Any) -> bool:
    """FoldClampOpPattern: max(min, operand), then min(max, that); all of one type."""
    type_ = result_type(op)
    if not shape_fold_dtype(type_, options) or not is_static(type_):
        return False
    low, operand, high = (read(value) for value in op.operands)
    if low is None or operand is None or high is None:
        return False
    if not (low.type == operand.type == high.type == type_):
        return False
    kind = operand.kind
    if kind.name == "int":
        unsigned = kind.unsigned
        maximum = (lambda a, b: max(a, b)) if unsigned else (lambda a, b: _smax(a, b, kind))
        minimum = (lambda a, b: min(a, b)) if unsigned else (lambda a, b: _smin(a, b, kind))
    elif kind.name == "float" and kind.fmt is not None:
        maximum = lambda a, b: float_maximum(kind.fmt, a, b)  # noqa: E731
        minimum = lambda a, b: float_minimum(kind.fmt, a, b)  # noqa: E731
    else:
        return False
    if low.splat and operand.splat and high.splat:
        triples = [(low.splat_value(), operand.splat_value(), high.splat_value())]
    else:
        triples = list(zip(low.all(), operand.all(), high.all(), strict=True))
    values = [minimum(c, maximum(a, b)) for a, b, c in triples]
    return replace_with_constant(op, rewriter, type_, values)


# ---------------------------------------------------------------------------------------------
# Unary elementwise folds (FoldUnaryOpPattern)

IntUnary = Callable[[int, ElementKind], "int | None"]
FloatUnary = Callable[[Any, int], "int | None"]


def unary_pattern(int_fn: IntUnary | None, float_fn: FloatUnary | None) -> Pattern:
    """Fold a constant operand element by element into a constant of the operand's type."""

    def pattern(op: Any, rewriter: Any, options: Any) -> bool:
        if len(op.operands) != 1 or len(op.results) != 1:
            return False
        element = element_of(result_type(op))
        if not (isinstance(element, ir.IntegerType) or isinstance(element, ir.FloatType)):
            return False
        operand = read(op.operands[0])
        if operand is None:
            return False
        kind = operand.kind
        if kind.name == "int" and int_fn is not None:
            values = [int_fn(value, kind) for value in operand.values]
        elif kind.name == "float" and kind.fmt is not None and float_fn is not None:
            values = [float_fn(kind.fmt, value) for value in operand.values]
        else:
            return False
        if any(value is None for value in values):
            return False
        return replace_with_constant(op, rewriter, operand.type, values)

    return pattern


def through_double(
    function: Callable[[float], float], guard: Callable[[float], bool] | None = None
) -> FloatUnary:
    """A fold computed on the double value, as upstream's `EvaluateOp(double)` does: the
    operand converted to double, `function` applied (None where `guard` rejects the operand),
    the result rounded back."""

    def fold(fmt: Any, bits: int) -> int | None:
        value = to_double(fmt, bits)
        if guard is not None and not guard(value):
            return None
        return from_double(fmt, function(value))

    return fold


def _c(name: str) -> Callable[[float], float]:
    return lambda x: c_math(name, x)


def _int_abs(bits: int, kind: ElementKind) -> int:
    return wrap(abs(signed(bits, kind.width)), kind.width)


def _int_negate(bits: int, kind: ElementKind) -> int:
    return wrap(-bits, kind.width)


def _int_not(bits: int, kind: ElementKind) -> int:
    return bits ^ kind.mask


def _int_sign(bits: int, kind: ElementKind) -> int | None:
    if kind.unsigned:
        return None
    value = signed(bits, kind.width)
    return wrap((value > 0) - (value < 0), kind.width)


def _float_abs(fmt: Any, bits: int) -> int:
    return bits & ~fmt.sign_bit


def _float_negate(fmt: Any, bits: int) -> int:
    return bits ^ fmt.sign_bit


def _float_sign(fmt: Any, bits: int) -> int | None:
    if fmt.is_nan(bits):
        return None
    if fmt.is_zero(bits):
        return fmt.zero(False)
    one = fmt.encode(1)
    return one | fmt.sign_bit if fmt.is_negative(bits) else one


fold_abs = unary_pattern(_int_abs, _float_abs)
fold_negate = unary_pattern(_int_negate, _float_negate)
fold_not = unary_pattern(_int_not, None)
fold_sign = unary_pattern(_int_sign, _float_sign)
fold_round = unary_pattern(None, lambda fmt, bits: round_to_integral(fmt, bits, ties_away=True))
fold_round_even = unary_pattern(
    None, lambda fmt, bits: round_to_integral(fmt, bits, ties_away=False)
)
fold_cosine = unary_pattern(None, through_double(_c("cos")))
fold_sine = unary_pattern(None, through_double(_c("sin")))
fold_tan = unary_pattern(None, through_double(_c("tan")))
fold_tanh = unary_pattern(None, through_double(_c("tanh")))
fold_exp = unary_pattern(None, through_double(_c("exp")))
fold_erf = unary_pattern(None, through_double(_c("erf")))
# Upstream's guards: `operand <= 0.0` (log, rsqrt) and `operand < 0.0` (sqrt) give up; NaN
# passes them.
fold_log = unary_pattern(None, through_double(_c("log"), lambda x: not x <= 0.0))
fold_logistic = unary_pattern(None, through_double(lambda x: 1.0 / (1.0 + c_math("exp", -x))))
fold_rsqrt = unary_pattern(
    None, through_double(lambda x: 1.0 / c_math("sqrt", x), lambda x: not x <= 0.0)
)
fold_sqrt = unary_pattern(None, through_double(_c("sqrt"), lambda x: not x < 0.0))


# ---------------------------------------------------------------------------------------------
# Convert


def _convert_element(value: int, source: ElementKind, target: ElementKind) -> int | None:
    """foldConvert's element rule; None where upstream's cast reports failure (or where the
    float format has no arithmetic here)."""
    source_unsigned = source.unsigned or source.is_bool
    if source.name == "float":
        if source.fmt is None:
            return None
        if target.name == "float":
            if target.fmt is None:
                return None
            bits, invalid = convert_float(source.fmt, target.fmt, value)
            return None if invalid else bits
        if target.is_bool:
            return int(not source.fmt.is_zero(value))
        if source.fmt.is_inf(value) or (
            source.fmt.is_zero(value) and source.fmt.is_negative(value)
        ):
            return None
        return float_to_int(source.fmt, value, target.width, target.unsigned)
    number = value if source_unsigned else signed(value, source.width)
    if target.name == "float":
        return None if target.fmt is None else target.fmt.encode(number)
    if target.is_bool:
        return int(value != 0)
    return wrap(number, target.width)


def fold_convert(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if (
        not is_static(type_)
        or not shape_fold_dtype(type_, options)
        or exceeds_limit(type_, options)
    ):
        return False
    source, target = tensor_kind(op.operands[0].type), tensor_kind(type_)
    if not options.optimize_float and "float" in (source.name, target.name):
        return False
    operand = read(op.operands[0])
    if operand is None or operand.kind.name not in ("int", "float"):
        return False
    values = [_convert_element(value, source, target) for value in operand.values]
    if any(value is None for value in values):
        return False
    return replace_with_constant(op, rewriter, type_, values)


# ---------------------------------------------------------------------------------------------
# Shape and data movement


def _dims(op: Any, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


def _shape(type_: Any) -> list[int]:
    return list(ir.ShapedType(type_).shape)


def _strides(shape: list[int]) -> list[int]:
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= size
    return strides[::-1]


def fold_broadcast_in_dim_splat(op: Any, rewriter: Any, options: Any) -> bool:
    """broadcast_in_dim(splat, _) -> constant(splat)."""
    type_ = result_type(op)
    if not is_static(type_) or not shape_fold_dtype(type_, options, allow_complex=True):
        return False
    operand = read(op.operands[0])
    if operand is None or not operand.splat:
        return False
    return replace_with_constant(op, rewriter, type_, [operand.splat_value()])


def fold_concatenate(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if (
        not is_static(type_)
        or not shape_fold_dtype(type_, options)
        or exceeds_limit(type_, options)
    ):
        return False
    inputs = [read(value) for value in op.operands]
    if any(elements is None for elements in inputs):
        return False
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    top = 1
    for size in _shape(type_)[:dimension]:
        top *= size
    values: list[Any] = []
    expanded = [elements.all() for elements in inputs]
    for i in range(top):
        for elements, data in zip(inputs, expanded, strict=True):
            bottom = elements.size // top
            values.extend(data[i * bottom : (i + 1) * bottom])
    return replace_with_constant(op, rewriter, type_, values)


def fold_concatenate_adjacent_splats(op: Any, rewriter: Any, options: Any) -> bool:
    """concat(splat_a, splat_a, X) -> concat(splat_a_resized, X)."""
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    operands = list(op.operands)
    splats = [_splat_key(value) for value in operands]
    new_operands: list[Any] = []
    i = 0
    with rewriter.ip, op.location:
        while i < len(operands):
            key = splats[i]
            j = i + 1
            while key is not None and j < len(operands) and splats[j] == key:
                j += 1
            if key is not None and j - i > 1:
                shape = _shape(key[0])
                shape[dimension] *= j - i
                resized = ir.RankedTensorType.get(shape, element_of(key[0]))
                new_operands.append(splat_constant(resized, key[1]).results[0])
            else:
                new_operands.append(operands[i])
            i = j
        if len(new_operands) == len(operands):
            return False
        new = ir.Operation.create(
            "stablehlo.concatenate",
            results=[result_type(op)],
            operands=new_operands,
            attributes={"dimension": op.attributes["dimension"]},
        )
    rewriter.replace_op(op, new)
    return True


def _splat_key(value: Any) -> tuple[Any, Any] | None:
    """(type, splat bits) of a splat dense constant: equal keys are equal attributes."""
    elements = read(value)
    if elements is None or not elements.splat:
        return None
    return (elements.type, elements.splat_value())


def fold_dynamic_slice(op: Any, rewriter: Any, options: Any) -> bool:
    """dynamic_slice(splat_cst, ...) -> resized splat."""
    type_ = result_type(op)
    operand = read(op.operands[0])
    if not is_static(type_) or operand is None or not operand.splat:
        return False
    return replace_with_constant(op, rewriter, type_, [operand.splat_value()])


def fold_get_dimension_size(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if not is_static(type_) or not shape_fold_dtype(type_, options):
        return False
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    size = ir.ShapedType(op.operands[0].type).shape[dimension]
    if size == ir.ShapedType.get_dynamic_size():
        return False
    return replace_with_constant(op, rewriter, type_, [wrap(size, tensor_kind(type_).width)])


def fold_reshape(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if not is_static(type_) or not shape_fold_dtype(type_, options, allow_complex=True):
        return False
    operand = read(op.operands[0])
    if operand is None:
        return False
    return replace_with_constant(op, rewriter, type_, operand.values)


def fold_reverse(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = op.operands[0].type
    if not is_static(type_) or exceeds_limit(type_, options):
        return False
    operand = read(op.operands[0])
    if operand is None:
        return False
    dims = _dims(op, "dimensions")
    shape = _shape(type_)
    if not dims or operand.size <= 1 or operand.splat or all(shape[d] == 1 for d in dims):
        return False  # trivial reverses are the simplifier's
    if operand.kind.name not in ("int", "float"):
        return False
    strides = _strides(shape)
    source = operand.all()
    values = []
    for index in range(operand.size):
        position = [(index // strides[d]) % shape[d] for d in range(len(shape))]
        for d in dims:
            position[d] = shape[d] - 1 - position[d]
        values.append(source[sum(p * s for p, s in zip(position, strides, strict=True))])
    return replace_with_constant(op, rewriter, type_, values)


def fold_select(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    if not is_static(type_) or not shape_fold_dtype(type_, options):
        return False
    predicate, on_true, on_false = (read(value) for value in op.operands)
    if predicate is None or predicate.kind.name != "int" or on_true is None or on_false is None:
        return False
    if predicate.splat:
        chosen = on_true if predicate.splat_value() else on_false
        return replace_with_elements(op, rewriter, chosen)
    if isinstance(element_of(type_), ir.FloatType) or exceeds_limit(type_, options):
        return False
    values = [
        t if p else f
        for p, t, f in zip(predicate.all(), on_true.all(), on_false.all(), strict=False)
    ]
    return replace_with_constant(op, rewriter, type_, values)


def fold_set_dimension_size(op: Any, rewriter: Any, options: Any) -> bool:
    """set_dimension_size(X, size, dim) -> X where size is X's static size along dim."""
    type_ = result_type(op)
    if op.operands[0].type != type_:
        return False
    size = read(op.operands[1])
    if size is None or not size.splat:
        return False
    dimension = ir.IntegerAttr(op.attributes["dimension"]).value
    if size.splat_value() != ir.ShapedType(type_).shape[dimension] % (1 << 64):
        return False
    op.results[0].replace_all_uses_with(op.operands[0])
    return True


def fold_slice(op: Any, rewriter: Any, options: Any) -> bool:
    type_ = result_type(op)
    operand_type = op.operands[0].type
    if not is_static(type_) or not shape_fold_dtype(type_, options) or not is_static(operand_type):
        return False
    operand = read(op.operands[0])
    if operand is None:
        return False
    if operand.splat:
        return replace_with_constant(op, rewriter, type_, [operand.splat_value()])
    if operand.kind.name not in ("int", "float"):
        return False
    start, limit, stride = (
        _dims(op, name) for name in ("start_indices", "limit_indices", "strides")
    )
    strides = _strides(_shape(operand_type))
    values = []
    index = list(start)
    for _ in range(num_elements(type_)):
        values.append(operand.values[sum(i * s for i, s in zip(index, strides, strict=True))])
        for d in reversed(range(len(index))):
            index[d] += stride[d]
            if index[d] >= limit[d]:
                index[d] = start[d]
            else:
                break
    return replace_with_constant(op, rewriter, type_, values)


def fold_transpose(op: Any, rewriter: Any, options: Any) -> bool:
    """transpose(constant) -> constant with permuted dimensions (any size, any splat)."""
    type_ = result_type(op)
    if not is_static(type_):
        return False
    operand = read(op.operands[0])
    if operand is None:
        return False
    if operand.splat:
        return replace_with_constant(op, rewriter, type_, [operand.splat_value()])
    if operand.kind.name not in ("int", "float"):
        return False
    permutation = _dims(op, "permutation")
    result_shape = _shape(type_)
    source_strides = _strides(_shape(operand.type))
    values = []
    result_strides = _strides(result_shape)
    for index in range(num_elements(type_)):
        position = [
            (index // result_strides[d]) % result_shape[d] for d in range(len(result_shape))
        ]
        source = sum(position[d] * source_strides[permutation[d]] for d in range(len(position)))
        values.append(operand.values[source])
    return replace_with_constant(op, rewriter, type_, values)


def fold_iota(op: Any, rewriter: Any, options: Any) -> bool:
    """Only the trivial iotas: no elements, or one (whose value is 0)."""
    type_ = result_type(op)
    if exceeds_limit(type_, options) or not isinstance(element_of(type_), ir.IntegerType):
        return False
    count = num_elements(type_)
    if count > 1:
        return False
    return replace_with_constant(op, rewriter, type_, [0] * count)


# ---------------------------------------------------------------------------------------------
# Reduce


def fold_reduce_no_dimensions(op: Any, rewriter: Any, options: Any) -> bool:
    """reduce over no dimensions -> its inputs (where the types match)."""
    if _dims(op, "dimensions"):
        return False
    count = len(op.results)
    inputs = list(op.operands)[:count]
    if any(i.type != r.type for i, r in zip(inputs, op.results, strict=True)):
        return False
    rewriter.replace_op(op, inputs)
    return True


def fold_reduce_to_constant_initializer(op: Any, rewriter: Any, options: Any) -> bool:
    """A body that only returns constants from outside -> those constants, broadcast."""
    block = region_block(op)
    operations = list(block.operations)
    if len(operations) != 1 or operations[0].operation.name != "stablehlo.return":
        return False
    replacements = []
    for returned, result in zip(operations[0].operands, op.results, strict=True):
        elements = read(returned)
        if elements is None or not elements.splat or not is_static(result.type):
            return False
        replacements.append((result.type, elements.splat_value()))
    with rewriter.ip, op.location:
        values = [splat_constant(t, v).results[0] for t, v in replacements]
    rewriter.replace_op(op, values)
    return True


def fold_reduce_redundant_results(op: Any, rewriter: Any, options: Any) -> bool:
    """A body that returns values from outside it -> those values."""
    block = region_block(op)
    terminator = block_terminator(block)
    if terminator.name != "stablehlo.return":
        return False
    returned = list(terminator.operands)
    for value, result in zip(returned, op.results, strict=True):
        if defined_in(value, block) or value.type != result.type:
            return False
    rewriter.replace_op(op, returned)
    return True


def lower_bool_splats_into_reduce(op: Any, rewriter: Any, options: Any) -> bool:
    """An and/or reduction of splat constants: the body's arguments become those constants."""
    block = region_block(op)
    operations = list(block.operations)
    if len(operations) != 2 or operations[0].operation.name not in (
        "stablehlo.and",
        "stablehlo.or",
    ):
        return False
    splats = []
    for value, argument in zip(op.operands, block.arguments, strict=True):
        elements = read(value)
        if elements is None or not elements.splat or not isinstance(argument.type, ir.ShapedType):
            return False
        splats.append((argument.type, elements.splat_value()))
    with rewriter.ip, operations[0].operation.location:
        for argument, (type_, value) in zip(block.arguments, splats, strict=True):
            argument.replace_all_uses_with(splat_constant(type_, value).results[0])
    return True


# ---------------------------------------------------------------------------------------------
# Control flow


# StableHLO ops whose MemoryEffectOpInterface declares effects.
_DECLARED_EFFECTS = {"stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv"}
# StableHLO ops with no MemoryEffectOpInterface: RecursiveMemoryEffects ops and ops that
# declare nothing (their effects are unknown, not declared).
_NO_EFFECT_INTERFACE = {
    "stablehlo.if", "stablehlo.case", "stablehlo.while", "stablehlo.reduce", "stablehlo.map",
    "stablehlo.scatter", "stablehlo.select_and_scatter", "stablehlo.sort",
    "stablehlo.reduce_window", "stablehlo.all_gather", "stablehlo.all_reduce",
    "stablehlo.reduce_scatter", "stablehlo.all_to_all", "stablehlo.async_start",
    "stablehlo.async_done", "stablehlo.collective_broadcast", "stablehlo.collective_reduce",
    "stablehlo.collective_permute", "stablehlo.composite", "stablehlo.rng",
}  # fmt: skip
# Other ops known to carry no MemoryEffectOpInterface.
_OTHER_NO_INTERFACE = {"func.call", "func.call_indirect"}
# Dialects whose ops (other than the above) all declare no memory effects.
_PURE_DIALECTS = ("chlo.", "arith.", "math.", "func.")


def declared_effects(op: Any) -> bool | None:
    """Whether `op` declares memory effects through MemoryEffectOpInterface: True (it does),
    False (it implements the interface and has none), None (no interface: effects unknown or
    those of its regions).  An op this table does not know counts as declaring effects."""
    name = op.name
    if name in _DECLARED_EFFECTS:
        return True
    if name == "stablehlo.custom_call":
        side_effect = (
            op.attributes["has_side_effect"] if "has_side_effect" in op.attributes else None
        )
        return side_effect is not None and ir.BoolAttr(side_effect).value
    if name in _NO_EFFECT_INTERFACE or name in _OTHER_NO_INTERFACE:
        return None
    if name.startswith("stablehlo.") or name.startswith(_PURE_DIALECTS):
        return False
    if not op.context.is_registered_operation(name):
        return None
    return True


def has_declared_side_effects(op: Any) -> bool:
    """hasAnyDeclaredSideEffects: `op` or an op in its regions declares memory effects."""
    declared = declared_effects(op)
    if declared is not None:
        return declared
    return any(
        has_declared_side_effects(nested.operation)
        for region in op.regions
        for block in region.blocks
        for nested in block.operations
    )


def _condition_is_false(op: Any) -> bool:
    terminator = block_terminator(region_block(op, 0))
    if terminator.name != "stablehlo.return" or not terminator.operands:
        return False
    condition = read(terminator.operands[0])
    return (
        condition is not None
        and condition.kind.name == "int"
        and condition.splat
        and condition.splat_value() == 0
    )


def fold_while(op: Any, rewriter: Any, options: Any) -> bool:
    """while(operands, cond=false) -> operands; the loop itself is left to dead-code
    elimination.  A loop that reaches a pattern with no uses is one the driver could not
    erase (it erases trivially dead ops first), so it is kept."""
    if has_no_uses(op) or not _condition_is_false(op):
        return False
    for result, operand in zip(op.results, op.operands, strict=True):
        result.replace_all_uses_with(operand)
    return True


def fold_dead_while_presumed_pure(op: Any, rewriter: Any, options: Any) -> bool:
    """With assume-no-undeclared-side-effects: a dead loop whose body never runs and that
    declares no side effects is erased (calls in it presumed pure)."""
    if not options.assume_no_undeclared_side_effects:
        return False
    if not has_no_uses(op) or not _condition_is_false(op) or has_declared_side_effects(op):
        return False
    rewriter.erase_op(op)
    return True


def _placeholder(type_: Any) -> Callable[[], Any] | None:
    """LazyPlaceholderValue: how to make a value of `type_` for an emptied case branch."""
    if ir.Type.parse("!stablehlo.token") == type_:
        return lambda: ir.Operation.create("stablehlo.after_all", results=[type_]).results[0]
    if not is_static(type_):
        return None
    kind = tensor_kind(type_)
    if kind.name == "int" or kind.name == "float" or (kind.name == "complex" and kind.fmt):
        return lambda: constant(type_, [zero_bits(kind)]).results[0]
    return None


def inline_case_with_constant_index(op: Any, rewriter: Any, options: Any) -> bool:
    """case with a constant index -> the chosen branch inlined (out of range: the last); the
    emptied branch returns placeholders so the dead case stays valid."""
    if has_no_uses(op):
        return False
    index = read(op.operands[0])
    if index is None or not index.splat:
        return False
    branches = len(op.regions)
    selected = signed(index.splat_value(), index.kind.width)
    if not 0 <= selected < branches:
        selected = branches - 1
    found = [_placeholder(result.type) for result in op.results]
    placeholders = [make for make in found if make is not None]
    if len(placeholders) != len(found):
        return False
    block = region_block(op, selected)
    terminator = block_terminator(block)
    for nested in list(block.operations)[:-1]:
        nested.operation.move_before(op)
    for result, value in zip(op.results, terminator.operands, strict=True):
        result.replace_all_uses_with(value)
    rewriter.erase_op(terminator)
    with ir.InsertionPoint(block), op.location:
        values = [make() for make in placeholders]
        ir.Operation.create("stablehlo.return", operands=values)
    return True


# ---------------------------------------------------------------------------------------------
# The pattern set, in upstream's order (populateStablehloShapeFolderPatterns first).

SHAPE_FOLDER_PATTERNS: list[tuple[str, Pattern]] = [
    ("stablehlo.add", fold_add),
    ("stablehlo.and", fold_and),
    ("stablehlo.broadcast_in_dim", fold_broadcast_in_dim_splat),
    ("stablehlo.clamp", fold_clamp),
    ("stablehlo.compare", fold_compare),
    ("stablehlo.concatenate", fold_concatenate),
    ("stablehlo.concatenate", fold_concatenate_adjacent_splats),
    ("stablehlo.convert", fold_convert),
    ("stablehlo.divide", fold_divide),
    ("stablehlo.dynamic_slice", fold_dynamic_slice),
    ("stablehlo.get_dimension_size", fold_get_dimension_size),
    ("stablehlo.maximum", fold_maximum),
    ("stablehlo.minimum", fold_minimum),
    ("stablehlo.multiply", fold_multiply),
    ("stablehlo.or", fold_or),
    ("stablehlo.remainder", fold_remainder),
    ("stablehlo.reshape", fold_reshape),
    ("stablehlo.select", fold_select),
    ("stablehlo.set_dimension_size", fold_set_dimension_size),
    ("stablehlo.sign", fold_sign),
    ("stablehlo.slice", fold_slice),
    ("stablehlo.subtract", fold_subtract),
]
OTHER_FOLDER_PATTERNS: list[tuple[str, Pattern]] = [
    ("stablehlo.abs", fold_abs),
    ("stablehlo.cosine", fold_cosine),
    ("chlo.erf", fold_erf),
    ("stablehlo.exponential", fold_exp),
    ("stablehlo.iota", fold_iota),
    ("stablehlo.log", fold_log),
    ("stablehlo.logistic", fold_logistic),
    ("stablehlo.negate", fold_negate),
    ("stablehlo.not", fold_not),
    ("stablehlo.reduce", fold_reduce_no_dimensions),
    ("stablehlo.reduce", fold_reduce_to_constant_initializer),
    ("stablehlo.reduce", fold_reduce_redundant_results),
    ("stablehlo.reverse", fold_reverse),
    ("stablehlo.round_nearest_afz", fold_round),
    ("stablehlo.round_nearest_even", fold_round_even),
    ("stablehlo.rsqrt", fold_rsqrt),
    ("stablehlo.sine", fold_sine),
    ("stablehlo.sqrt", fold_sqrt),
    ("stablehlo.tan", fold_tan),
    ("stablehlo.tanh", fold_tanh),
    ("stablehlo.transpose", fold_transpose),
    ("stablehlo.while", fold_dead_while_presumed_pure),
    ("stablehlo.while", fold_while),
    ("stablehlo.xor", fold_xor),
    ("stablehlo.case", inline_case_with_constant_index),
    ("stablehlo.reduce", lower_bool_splats_into_reduce),
]
FOLDER_PATTERNS = SHAPE_FOLDER_PATTERNS + OTHER_FOLDER_PATTERNS


@register_pass(
    "stablehlo-aggressive-folder",
    options=OptimizationOptions,
    description="Folds StableHLO operations",
    anchor="func.func",
)
def stablehlo_aggressive_folder(module: Any, options: OptimizationOptions) -> None:
    """Upstream's folding patterns, greedily on each function."""

    def build() -> Any:
        patterns = rewrite.RewritePatternSet()
        add_patterns(patterns, FOLDER_PATTERNS, options, benefit=1)
        return patterns

    with module.context:
        run_on_functions(module, build)
