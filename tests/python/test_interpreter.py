"""The check dialect's custom syntax, rewritten to generic form line for line."""

from __future__ import annotations

import pytest

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
            '"shlo.check.expect_close"(%a, %b) {max_ulp_difference = 3} : '
            "(tensor<f32>, tensor<f32>) -> ()",
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


def test_missing_type_is_an_error() -> None:
    with pytest.raises(CheckSyntaxError, match="check op without a type"):
        generic_check("expect_eq", "%0, %1")


PROGRAM = """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @negate(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.negate %a : tensor<3xi32>
  return %0 : tensor<3xi32>
}
func.func @spectrum(%a: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  %0 = stablehlo.fft %a, type = FFT, length = [2]
      : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %1 = stablehlo.real %0 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
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
    import numpy as np

    from shlo.interpreter.evaluate import interpret_module

    module = _module()
    (product,) = interpret_module(
        module, [np.array([1.5, 2.0], np.float32), np.array([2.0, -3.0], np.float32)]
    )
    assert product.tolist() == [3.0, -6.0] and product.dtype == np.float32
    (negated,) = interpret_module(module, [np.array([1, -2, 3], np.int32)], function="negate")
    assert negated.tolist() == [-1, 2, -3]


def test_interpreter_abort_is_an_error_not_a_dead_process() -> None:
    import numpy as np

    from shlo.interpreter.evaluate import InterpreterError, interpret_module

    with pytest.raises(InterpreterError, match="@spectrum: the interpreter aborted"):
        interpret_module(_module(), [np.array([1 + 0j, 2 + 0j], np.complex64)], "spectrum")
    with pytest.raises(InterpreterError, match="no function @forward"):
        interpret_module(_module(), [], "forward")


def test_portable_artifact_round_trip_and_range() -> None:
    from shlo.ir.portable import PortableError, deserialize, serialize

    module = _module()
    for target in ("minimum", "1.0.0", "current"):
        assert deserialize(serialize(module, target)).text() == module.text()
    with pytest.raises(PortableError, match="outside the supported range 0.9.0 to"):
        serialize(module, "0.1.0")
