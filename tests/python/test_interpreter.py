"""The check dialect's custom syntax rewritten to generic form; upstream's check semantics."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from shlo.errors import InterpreterError, PortableError
from shlo.interpreter.checks import ULP_INFINITE, ulp_difference
from shlo.ir.check_dialect import CheckSyntaxError, generic_check, to_generic


@pytest.mark.parametrize(
    ("kind", "body", "generic"),
    [
        (
            "expect_eq",
            "%0, %1 : tensor<2xf32>",
            '"shlo.check.expect_eq"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()',
        ),
        (
            "expect_eq_const",
            "%0, dense<[1, 2]> : tensor<2xi32>",
            '"shlo.check.expect_eq_const"(%0) {value = dense<[1, 2]> : tensor<2xi32>} : '
            "(tensor<2xi32>) -> ()",
        ),
        (
            "expect_close",
            "%a, %b, max_ulp_difference = 3 : tensor<f32>, tensor<f32>",
            '"shlo.check.expect_close"(%a, %b) {max_ulp_difference = 3 : ui64} : '
            "(tensor<f32>, tensor<f32>) -> ()",
        ),
        (
            "expect_almost_eq_const",
            "%r, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}",
            '"shlo.check.expect_almost_eq_const"(%r) {tolerance = 0.1 : f64, '
            "value = dense<5.1> : tensor<f64>} : (tensor<f64>) -> ()",
        ),
        (
            "expect_almost_eq_const",
            "%r, dense<(1.0, 2.0)> : tensor<complex<f32>>",
            '"shlo.check.expect_almost_eq_const"(%r) {value = dense<(1.0, 2.0)> : '
            "tensor<complex<f32>>} : (tensor<complex<f32>>) -> ()",
        ),
    ],
)
def test_generic_forms(kind: str, body: str, generic: str) -> None:
    assert generic_check(kind, body) == generic


def test_lines_keep_their_places() -> None:
    text = "func.func @f() {\n  check.expect_eq %0, %0 : tensor<i32> // note\n  return\n}\n"
    converted = to_generic(text)
    assert converted.count("\n") == text.count("\n")
    assert converted.splitlines()[1].startswith('  "shlo.check.expect_eq"(%0, %0)')


def test_an_op_over_several_lines_keeps_the_lines_after_it_in_place() -> None:
    text = (
        "func.func @f() {\n"
        "  check.expect_eq_const %0, dense<[[1, 2],  // first row\n"
        "                                  [3, 4]]>\n"
        "      : tensor<2x2xi32>\n"
        '  "check.expect_eq"(%0, %0) : (tensor<2x2xi32>, tensor<2x2xi32>) -> ()\n'
        "  return\n}\n"
    )
    lines = to_generic(text).split("\n")
    assert len(lines) == text.count("\n") + 1
    assert lines[1] == (
        '  "shlo.check.expect_eq_const"(%0) {value = dense<[[1, 2], [3, 4]]> : '
        "tensor<2x2xi32>} : (tensor<2x2xi32>) -> ()"
    )
    assert lines[2:4] == ["", ""]
    assert lines[4].startswith('  "shlo.check.expect_eq"(%0, %0)')


def test_malformed_check_ops_name_their_line_and_column() -> None:
    with pytest.raises(CheckSyntaxError, match="expected ':' and the operand types") as error:
        to_generic("func.func @f() {\n\n    check.expect_eq %0, %1\n  return\n}\n", first_line=10)
    assert (error.value.line, error.value.column) == (12, 5)
    with pytest.raises(CheckSyntaxError, match="2 operands but 3 types"):
        generic_check("expect_eq", "%0, %1 : tensor<i1>, tensor<i1>, tensor<i1>")


def test_missing_type_is_an_error() -> None:
    with pytest.raises(CheckSyntaxError, match="expected ':' and the operand types"):
        generic_check("expect_eq", "%0, %1")


@pytest.mark.parametrize(
    ("actual", "expected", "ulps"),
    [
        (np.float32(1.0), np.float32(1.0), 0),
        (np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(2.0)), 1),
        (np.float32(-0.0), np.float32(0.0), 0 + 0),  # signs counted apart: |0| + |0|
        (np.float32(-1e-45), np.float32(1e-45), 2),
        (np.float32("nan"), np.float32("nan"), 0),
        (np.float32("inf"), np.float32("-inf"), ULP_INFINITE),
        (np.float32("inf"), np.float32(1.0), ULP_INFINITE),
    ],
)
def test_ulp_difference_as_upstream_counts_it(actual, expected, ulps) -> None:
    assert ulp_difference(np.array([actual]), np.array([expected]))[0] == ulps


def test_ulp_difference_of_complex_is_the_larger_part() -> None:
    one_up = np.nextafter(np.float64(2.0), np.float64(3.0))
    actual = np.array([complex(1.0, one_up)])
    assert ulp_difference(actual, np.array([complex(1.0, 2.0)]))[0] == 1


PROGRAM = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @negate(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.negate %a : tensor<3xi32>
  return %0 : tensor<3xi32>
}
func.func @divide(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.constant dense<0> : tensor<2xi32>
  %1 = stablehlo.divide %a, %0 : tensor<2xi32>
  return %1 : tensor<2xi32>
}
func.func @spectrum(%r: tensor<2xf64>) -> tensor<2xf64> {
  %z = stablehlo.constant dense<0.0> : tensor<2xf64>
  %a = stablehlo.complex %r, %z : tensor<2xcomplex<f64>>
  %0 = stablehlo.fft %a, type = FFT, length = [2]
      : (tensor<2xcomplex<f64>>) -> tensor<2xcomplex<f64>>
  %1 = stablehlo.real %0 : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
  return %1 : tensor<2xf64>
}
"""


def _module():
    from shlo.ir.module import parse_source
    from shlo.ir.source import Source
    from shlo.ir.worlds import ContextPolicy, get_world

    world = get_world("stablehlo")
    return parse_source(
        world, world.make_context(ContextPolicy()), Source("p.mlir", ("// p\n" + PROGRAM).encode())
    )


def test_interpret_numpy_in_numpy_out_choosing_the_function() -> None:

    from shlo.interpreter.evaluate import interpret_module

    module = _module()
    (product,) = interpret_module(
        module, [np.array([1.5, 2.0], np.float32), np.array([2.0, -3.0], np.float32)]
    )
    assert product.tolist() == [3.0, -6.0] and product.dtype == np.float32
    (negated,) = interpret_module(module, [np.array([1, -2, 3], np.int32)], function="negate")
    assert negated.tolist() == [-1, 2, -3]


def test_interpreter_abort_is_an_error_not_a_dead_process() -> None:
    from shlo.interpreter.evaluate import interpret_module

    with pytest.raises(InterpreterError, match="@divide: the interpreter aborted: SIGFPE"):
        interpret_module(_module(), [np.array([1, 2], np.int32)], "divide")
    with pytest.raises(InterpreterError, match="no function @forward"):
        interpret_module(_module(), [], "forward")


def test_complex_values_inside_real_values_out() -> None:
    from shlo.interpreter.evaluate import interpret_module

    (spectrum,) = interpret_module(_module(), [np.array([1.0, 2.0], np.float64)], "spectrum")
    assert spectrum.tolist() == [3.0, -1.0]


# Every element type upstream's interpreter takes and gives (reference/Types.cpp's
# isSupported*Type, Tensor.cpp's makeTensor), and numpy's type for it.
UPSTREAM_TYPES = {
    "i1": np.bool_,
    **{f"i{w}": getattr(ml_dtypes, f"int{w}") for w in (2, 4)},
    **{f"i{w}": np.dtype(f"i{w // 8}") for w in (8, 16, 32, 64)},
    **{f"ui{w}": getattr(ml_dtypes, f"uint{w}") for w in (2, 4)},
    **{f"ui{w}": np.dtype(f"u{w // 8}") for w in (8, 16, 32, 64)},
    "f4E2M1FN": ml_dtypes.float4_e2m1fn,
    "f6E2M3FN": ml_dtypes.float6_e2m3fn,
    "f6E3M2FN": ml_dtypes.float6_e3m2fn,
    "f8E3M4": ml_dtypes.float8_e3m4,
    "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz,
    "f8E4M3": ml_dtypes.float8_e4m3,
    "f8E4M3FN": ml_dtypes.float8_e4m3fn,
    "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "f8E5M2": ml_dtypes.float8_e5m2,
    "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
    "f8E8M0FNU": ml_dtypes.float8_e8m0fnu,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
}
_BITS = {"f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6, "i2": 2, "ui2": 2, "i4": 4, "ui4": 4}


def _special_values(element: str) -> np.ndarray:
    """Every bit pattern of a type of 16 bits or fewer; of wider ones, the extremes and the
    special values (both zeros, both infinities, NaN, the smallest normal and subnormal)."""
    dtype = np.dtype(UPSTREAM_TYPES[element])
    if dtype == np.bool_:
        return np.array([True, False, False, True])
    if dtype.itemsize <= 2:
        patterns = np.arange(2 ** _BITS.get(element, 8 * dtype.itemsize))
        return patterns.astype(f"u{dtype.itemsize}").view(dtype)
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        return np.array([limits.min, limits.max, 0, 1, limits.max // 3], dtype)
    part = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    limits = np.finfo(part)
    reals = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, limits.max, -limits.max, limits.tiny]
        + [limits.smallest_subnormal, -1 / 3],
        part,
    )
    if dtype.kind != "c":
        return reals
    real, imaginary = np.meshgrid(reals, reals)
    joined = np.empty(real.size, dtype)
    joined.real, joined.imag = real.ravel(), imaginary.ravel()  # apart: 1j * inf is (nan, inf)
    return joined


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind == "c":
        return _same_bits(got.real.copy(), want.real.copy()) and _same_bits(
            got.imag.copy(), want.imag.copy()
        )
    return bool(np.all(got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")))


def _identity_and_reverse(element: str, count: int):
    from shlo.ir.module import parse_source
    from shlo.ir.source import Source
    from shlo.ir.worlds import ContextPolicy, get_world

    tensor = f"tensor<{count}x{element}>"
    text = (
        f"func.func @main(%a: {tensor}, %b: tensor<i32>) -> ({tensor}, tensor<i32>, {tensor}) {{\n"
        f"  %r = stablehlo.reverse %a, dims = [0] : {tensor}\n"
        f"  return %a, %b, %r : {tensor}, tensor<i32>, {tensor}\n}}\n"
    )
    world = get_world("stablehlo")
    return parse_source(world, world.make_context(ContextPolicy()), Source("t.mlir", text.encode()))


def test_the_interpreter_types_are_upstreams() -> None:
    from shlo.interpreter.probes import NUMPY_TYPES

    assert {k: np.dtype(v) for k, v in NUMPY_TYPES.items()} == {
        k: np.dtype(v) for k, v in UPSTREAM_TYPES.items()
    }


@pytest.mark.parametrize("element", sorted(UPSTREAM_TYPES))
def test_every_element_type_goes_in_and_comes_out_bit_for_bit(element: str) -> None:
    from shlo.interpreter.evaluate import interpret_module

    values = _special_values(element)
    same, number, reversed_ = interpret_module(
        _identity_and_reverse(element, values.size), [values, np.array(7, np.int32)]
    )
    assert _same_bits(same, values) and _same_bits(reversed_, values[::-1].copy())
    assert number.tolist() == 7


@pytest.mark.parametrize("element", ["complex<f32>", "complex<f64>", "bf16", "f8E4M3FN"])
@pytest.mark.parametrize("count", [4, 300])  # MLIR prints over 100 elements as raw hex
def test_args_print_back_as_given_in_both_layouts(element: str, count: int, tmp_path, capfd):
    from shlo.interpreter.evaluate import numpy_argument
    from shlo.ir.stablehlo import make_context
    from shlo.ir.worlds import ContextPolicy
    from shlo.tools.translate_main import main

    values = np.resize(_special_values(element), count)
    argument = str(numpy_argument(values, make_context(ContextPolicy())))
    program = tmp_path / "p.mlir"
    program.write_text(_identity_and_reverse(element, count).text())
    args = f"--args=[{argument}, dense<7> : tensor<i32>]"
    assert main([str(program), "--interpret", "--interpreter-print-dense", args]) == 0
    assert capfd.readouterr().out.splitlines()[:2] == [argument, "dense<7> : tensor<i32>"]
    assert main([str(program), "--interpret", args]) == 0
    layout = capfd.readouterr().out.split("}\n")[0]  # the interpreter's own: every element
    assert '"0x' not in layout  # no raw hex string (NaN elements are spelled 0x7FC00000)
    assert layout.count(",") + 1 == count * (2 if element.startswith("complex") else 1)


def test_portable_artifact_round_trip_and_range() -> None:
    from shlo.ir.portable import deserialize, serialize

    module = _module()
    for target in ("minimum", "1.0.0", "current"):
        assert deserialize(serialize(module, target)).text() == module.text()
    with pytest.raises(PortableError, match="outside the supported range 0.9.0 to"):
        serialize(module, "0.1.0")


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--timeout", "nan"], "for the --timeout option: 'nan' value invalid"),
        (["-timeout=-1"], "for the --timeout option: '-1' value invalid"),
        (["--interp"], "Unknown command line argument '--interp'."),
    ],
)
def test_bad_options_are_one_line_and_exit_1(words, message, capsys) -> None:
    from shlo.tools.translate_main import build_parser

    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(words)
    assert stop.value.code == 1
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_every_long_option_has_llvm_single_dash_spelling() -> None:
    from shlo.tools.translate_main import build_parser

    args = build_parser().parse_args(["-interpret", "-args=[]", "-probe-output-dir", "d", "x"])
    assert (args.interpret, args.args, args.probe_output_dir, args.input) == (True, "[]", "d", "x")


def test_complex_probe_parts_join_without_nan(tmp_path) -> None:
    from shlo.interpreter.probes import Probed, ProbeRecord

    records = {}
    for part, value in (("re", 0.0), ("im", np.inf)):
        path = tmp_path / f"{part}.npy"
        np.save(path, np.array([value], dtype=np.float32))
        records[part] = [ProbeRecord(part, "tensor<1xf32>", str(path))]
    joined = Probed("complex<f32>", ("re", "im")).value(records, 0)
    assert joined.real[0] == 0.0 and joined.imag[0] == np.inf


def _float_pairs(element: str) -> tuple[list[tuple[int, int]], int | None]:
    """(actual, expected) bit patterns of a float type: special values (zeros, the smallest
    subnormal, 1, the largest finite, infinities, NaNs) against themselves, one ULP either way,
    the other sign, other NaNs and the largest finite number; and the type's sign bit (None
    when it has none)."""
    dtype = np.dtype(UPSTREAM_TYPES[element])
    bits = _BITS.get(element, 8 * dtype.itemsize)
    sign = 1 << bits - 1 if float(ml_dtypes.finfo(dtype).min) < 0 else None

    def pattern(value: float) -> int:
        return int(np.array([value], dtype).view(f"u{dtype.itemsize}")[0])

    if bits <= 16:
        every = np.arange(2**bits, dtype=f"u{dtype.itemsize}").view(dtype)
        with np.errstate(invalid="ignore"):  # NaN payloads
            nans = [int(p) for p in np.flatnonzero(np.isnan(every.astype(np.float64)))]
    else:
        nans = [pattern(np.nan), pattern(np.nan) + 1, pattern(np.nan) | 1 << bits - 1]
    finfo = ml_dtypes.finfo(dtype)
    bases = [0, 1, pattern(1.0), pattern(finfo.max), pattern(finfo.smallest_normal)]
    bases += [b | sign for b in bases] if sign is not None else []
    with np.errstate(over="ignore", invalid="ignore"):
        infinite = np.isinf(np.array([np.inf], dtype).astype(np.float64))[0]
    bases += [pattern(np.inf), pattern(-np.inf)] if infinite else []
    bases += nans[:1]
    pairs = {(b, m) for b in bases for m in (b, b + 1, b - 1, b ^ (sign or 0), *nans[-2:])}
    pairs |= {(pattern(finfo.max), b) for b in bases}
    return sorted((a, e) for a, e in pairs if 0 <= a < 2**bits and 0 <= e < 2**bits), sign


def _ulps(actual: tuple[float, int], expected: tuple[float, int], sign: int | None) -> int:
    """CheckOps.cpp's ULPDifference of two (value, bits), as written there."""
    (f, f_bits), (g, g_bits) = actual, expected
    if f_bits == g_bits:
        return 0
    if np.isfinite(f) and np.isfinite(g):
        magnitude = (sign or 1 << 64) - 1
        a, b = f_bits & magnitude, g_bits & magnitude
        if sign is not None and f_bits & sign != g_bits & sign:
            return a + b
        return abs(a - b)
    if np.isnan(f) and np.isnan(g):
        return 0
    return int(ULP_INFINITE)


def _almost(actual: tuple[float, int], expected: tuple[float, int]) -> bool:
    """Element.cpp's areApproximatelyEqual with the default tolerance, as written there."""
    f, g = actual[0], expected[0]
    if f == g:
        return True
    if np.isnan(f) or np.isnan(g):
        return bool(np.isnan(f) and np.isnan(g))
    return bool(np.isfinite(f) and np.isfinite(g) and abs(f - g) <= 1e-4)


_CHECKS = {  # each check's rule over the (value, bits) of each part (complex: two parts)
    "expect_eq": lambda a, e, sign: all(x[0] == y[0] for x, y in zip(a, e, strict=True)),
    "expect_almost_eq": lambda a, e, sign: all(map(_almost, a, e)),
    "expect_close": lambda a, e, sign: (
        max(_ulps(x, y, sign) for x, y in zip(a, e, strict=True)) <= 1
    ),
}


@pytest.mark.parametrize(
    "element", [*(e for e in UPSTREAM_TYPES if e[0] in "fb"), "complex<f32>", "complex<f64>"]
)
def test_check_ops_judge_special_values_as_check_ops_cpp(element: str, tmp_path, capfd) -> None:
    from shlo.interpreter.evaluate import numpy_argument
    from shlo.ir.stablehlo import make_context
    from shlo.ir.worlds import ContextPolicy
    from shlo.tools.translate_main import main

    part = element.removeprefix("complex<").removesuffix(">")
    dtype = np.dtype(UPSTREAM_TYPES[part])
    pairs, sign = _float_pairs(part)
    values = np.array(pairs, f"u{dtype.itemsize}").view(dtype)
    with np.errstate(invalid="ignore"):  # NaN payloads
        wide = values.astype(np.float64)
    one = int(np.array([1.0], dtype).view(f"u{dtype.itemsize}")[0])
    sides, parts = [], []
    for i in (0, 1):
        mutated = [(float(v), pair[i]) for v, pair in zip(wide[:, i], pairs, strict=True)]
        if part == element:
            sides.append(values[:, i].copy())
            parts.append([[m] for m in mutated])
            continue
        # complex: each mutation in the real part, then in the imaginary part, the other 1.0
        joined = np.ones(2 * len(pairs), UPSTREAM_TYPES[element])
        joined.real[: len(pairs)] = values[:, i]
        joined.imag[len(pairs) :] = values[:, i]
        sides.append(joined)
        parts.append([[m, (1.0, one)] for m in mutated] + [[(1.0, one), m] for m in mutated])
    count, tensor = len(sides[0]), f"tensor<1x{element}>"
    whole = f"tensor<{count}x{element}>"
    lines, failing = [f"func.func @main(%a: {whole}, %b: {whole}) {{"], set()
    for index in range(count):
        for name in "ab":
            limits = f"[{index}:{index + 1}]"
            lines.append(
                f"  %{name}{index} = stablehlo.slice %{name} {limits} : ({whole}) -> {tensor}"
            )
        for kind, rule in _CHECKS.items():
            close = kind == "expect_close"
            extra, types = (
                (", max_ulp_difference = 1", f"{tensor}, {tensor}") if close else ("", tensor)
            )
            lines.append(f"  check.{kind} %a{index}, %b{index}{extra} : {types}")
            if not rule(parts[0][index], parts[1][index], sign):
                failing.add(len(lines))
    program = tmp_path / "checks.mlir"
    program.write_text("\n".join([*lines, "  return", "}", ""]))
    context = make_context(ContextPolicy())
    args = ", ".join(str(numpy_argument(side, context)) for side in sides)
    main([str(program), "--interpret", f"--args=[{args}]"])
    reported = {
        int(m) for m in re.findall(r"checks.mlir:(\d+):\d+: error: check", capfd.readouterr().err)
    }
    assert failing and reported == failing


CHECK_RULES = """func.func @main() {
  %a = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %b = stablehlo.constant dense<[true, true]> : tensor<2xi1>
  %r = stablehlo.custom_call @check.eq(%a, %b) : (tensor<2xi1>, tensor<2xi1>) -> tensor<i1>
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.constant dense<[1.0, 2.00001]> : tensor<2xf32>
  check.expect_almost_eq %c, %c, tolerance = 0x7FF8000000000000 : tensor<2xf32>
  check.expect_almost_eq %c, %d, tolerance = 0x7FF0000000000000 : tensor<2xf32>
  check.expect_almost_eq %c, %d, tolerance = 0x7FF8000000000000 : tensor<2xf32>
  func.return
}
"""


def test_check_eq_on_booleans_and_non_finite_tolerances(tmp_path, capfd) -> None:
    """StablehloTranslateMain's @check.eq compares any integer type, i1 included, exactly; a
    tolerance is an f64 however spelled, and nothing is within a NaN tolerance."""
    from shlo.tools.translate_main import main

    program = tmp_path / "rules.mlir"
    program.write_text(CHECK_RULES)
    assert main([str(program), "--interpret"]) == 1
    errors = [line for line in capfd.readouterr().err.splitlines() if ": error: " in line]
    assert [e.split(":")[1] for e in errors] == ["4", "9"]
    assert "check.eq failed in @main: Element values don't match: false (actual)" in errors[0]
    assert "with tolerance nan: 2.0 (actual) vs 2.0000100135803223 (expected)" in errors[1]
