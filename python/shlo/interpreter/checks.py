"""The `check` dialect's ops, evaluated: taken out of a function before it runs, their operands
returned instead, and compared with what they expect afterwards.

`check.expect_eq`, `expect_eq_const`, `expect_almost_eq[_const]` (absolute tolerance) and
`expect_close` (ULP distance), in the check dialect's own ops or as `stablehlo.custom_call
@check.*`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shlo.ir.check_dialect import STAND_IN
from shlo.ir.diagnostics import line_column
from shlo.ir.edit import return_also
from shlo.ir.element_types import DTYPES
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir

DEFAULT_TOLERANCE = 1e-4


@dataclass
class Check:
    """One check op: its kind, where it was, how many operands it takes, its attributes."""

    kind: str
    line: int
    column: int
    operands: int
    expected: str | None = None
    options: dict[str, str] = field(default_factory=dict)


def check_kind(op: Any) -> str | None:
    """`expect_eq` for `check.expect_eq` and `stablehlo.custom_call @check.expect_eq`."""
    name = op.operation.name
    for prefix in (STAND_IN, "check."):
        if name.startswith(prefix):
            return name[len(prefix) :]
    if name == "stablehlo.custom_call":
        target = str(op.operation.attributes["call_target_name"]).strip('"')
        return target[len("check.") :] if target.startswith("check.") else None
    return None


def split_checks(function: Any) -> list[Check]:
    """Remove the function's check ops; their operands become extra results of the function."""
    block = function.regions[0].blocks[0]
    checks, checked = [], []
    for op in list(block.operations):
        kind = check_kind(op)
        if kind is None:
            continue
        operation = op.operation
        attributes = {
            key: str(operation.attributes[key])
            for key in operation.attributes
            if key not in ("value", "call_target_name")
        }
        value = constant_value(operation)
        expected = str(value) if value is not None else None
        if "value" in operation.attributes and value is None:
            attributes["unreadable"] = "complex constants cannot be read from Python"
        checks.append(
            Check(kind, *line_column(op.location), len(op.operands), expected, attributes)
        )
        checked += list(op.operands)
        operation.erase()
    return_also(function, checked)
    return checks


def attribute_array(attribute_text: str, context: Any) -> np.ndarray:
    """An elements attribute as numpy, in the element type it has (f32 stays f32)."""
    attribute = ir.DenseElementsAttr(ir.Attribute.parse(attribute_text, context))
    shaped = ir.ShapedType(attribute.type)
    dtype = DTYPES.get(str(shaped.element_type))
    if attribute.is_splat:
        array = np.full(shaped.shape, np.array(attribute.get_splat_value().value))
    else:
        array = np.array(attribute).reshape(shaped.shape)
    return array.astype(dtype) if dtype is not None else array


def evaluate_check(check: Check, actual: list[str], context: Any) -> str | None:
    """None when the check holds, else what differs."""
    if "unreadable" in check.options:
        return f"check.{check.kind}: {check.options['unreadable']}"
    got = attribute_array(actual[0], context)
    want = attribute_array(check.expected if check.expected else actual[1], context)
    if check.kind in ("expect_eq", "expect_eq_const"):
        ok = got.shape == want.shape and bool(np.array_equal(got, want))
    elif check.kind in ("expect_almost_eq", "expect_almost_eq_const"):
        tolerance = _number(check.options, "tolerance", DEFAULT_TOLERANCE)
        ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=0, atol=tolerance))
    elif check.kind == "expect_close":
        ok = _within_ulps(got, want, check.options)
    else:
        return f"check.{check.kind} is not supported"
    return None if ok else f"expected {_show(want)}, got {_show(got)}"


def _within_ulps(got: np.ndarray, want: np.ndarray, options: dict[str, str]) -> bool:
    high = int(_number(options, "max_ulp_difference", 1))
    low = int(_number(options, "min_ulp_difference", 0))
    if got.dtype.kind != "f" or got.shape != want.shape:
        return False
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[got.dtype.itemsize]
    distance = np.abs(got.view(bits).astype(np.int64) - want.view(bits).astype(np.int64))
    return bool(np.all((distance >= low) & (distance <= high)))


def _number(options: dict[str, str], key: str, default: float) -> float:
    """An attribute's number: `1.0e-04 : f64` -> 1e-4."""
    return float(options[key].split(":")[0]) if key in options else default


def _show(array: np.ndarray) -> str:
    return np.array2string(array, threshold=20, separator=", ", max_line_width=10**6)
