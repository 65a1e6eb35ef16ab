"""The check dialect's custom syntax rewritten to generic form; upstream's check semantics."""

from __future__ import annotations

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


def test_complex_values_inside_real_values_out_complex_arguments_refused() -> None:
    from shlo.interpreter.evaluate import interpret_module

    (spectrum,) = interpret_module(_module(), [np.array([1.0, 2.0], np.float64)], "spectrum")
    assert spectrum.tolist() == [3.0, -1.0]
    with pytest.raises(InterpreterError, match="complex arguments cannot be handed"):
        interpret_module(_module(), [np.array([1 + 0j, 2 + 0j], np.complex64)], "spectrum")


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
