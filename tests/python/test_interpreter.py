"""The check dialect's custom syntax, rewritten to generic form line for line."""

from __future__ import annotations

import pytest

from shlo.interpreter import InterpreterError, generic_check, to_generic


@pytest.mark.parametrize(
    ("kind", "body", "generic"),
    [
        (
            "expect_eq",
            "%0, %1 : tensor<2xf32>",
            '"check.expect_eq"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()',
        ),
        (
            "expect_eq_const",
            "%0, dense<[1, 2]> : tensor<2xi32>",
            '"check.expect_eq_const"(%0) {value = dense<[1, 2]> : tensor<2xi32>} : '
            "(tensor<2xi32>) -> ()",
        ),
        (
            "expect_close",
            "%a, %b, max_ulp_difference = 3 : tensor<f32>, tensor<f32>",
            '"check.expect_close"(%a, %b) {max_ulp_difference = 3} : (tensor<f32>, tensor<f32>)'
            " -> ()",
        ),
        (
            "expect_almost_eq_const",
            "%r, dense<(1.0, 2.0)> : tensor<complex<f32>>",
            '"check.expect_almost_eq_const"(%r) {value = dense<(1.0, 2.0)> : '
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
    assert converted.splitlines()[1].startswith('  "check.expect_eq"(%0, %0)')


def test_missing_type_is_an_error() -> None:
    with pytest.raises(InterpreterError, match="check op without a type"):
        generic_check("expect_eq", "%0, %1")
