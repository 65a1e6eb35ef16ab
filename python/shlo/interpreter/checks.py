"""The `check` dialect's ops, evaluated wherever they run.

No binding has the dialect, so before a program runs each check op (in any function, any
region, under `interpreter.run_parallel`) is replaced by `interpreter.probe` ops on what it
compares (its operands, and the constant it expects, materialized as a `stablehlo.constant`).
Every execution of the op leaves its values in the probe index; afterwards each execution is
judged as upstream's CheckOps.cpp judges it:

- `expect_eq[_const]`: element by element equality (NaN never equals; 0 equals -0);
- `expect_almost_eq[_const]`: equal, both NaN, or finite with the same sign and
  |a - b| <= tolerance (default 1e-4; complex parts apart);
- `expect_close`: ULP distance within [min_ulp_difference, max_ulp_difference]
  (defaults 0 and 3), signs counted apart, NaN vs NaN 0, other non-finite mismatches infinite;
- `expect_serialized_eq`: equal to the value a user probe wrote (`--probe-output-dir`).

`stablehlo.custom_call @check.*` is evaluated the same way (tolerance 1e-3, ULPs 0..3).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from shlo.interpreter.probes import Probed, ProbeRecord, load, probe
from shlo.ir.check_dialect import check_kind
from shlo.ir.diagnostics import line_column
from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir
from shlo.ir.text import split_top_level

PROBE_PREFIX = "shlo.check."
_TOLERANCE = {"op": 1e-4, "custom_call": 1e-3}
_MAX_ULP = 3
KINDS = {
    "expect_eq",
    "expect_eq_const",
    "expect_almost_eq",
    "expect_almost_eq_const",
    "expect_close",
    "expect_serialized_eq",
}


@dataclass
class Check:
    """One check op: its kind, where it is, its options, and how its values were probed."""

    kind: str
    function: str
    line: int
    column: int
    options: dict[str, str] = field(default_factory=dict)
    values: list[Probed] = field(default_factory=list)
    custom_call: bool = False


@dataclass
class CheckFailure:
    """A check that did not hold (or could not be evaluated), with the first reason."""

    check: Check
    message: str


def _function_name(op: Any) -> str:
    parent = op.operation.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return str(parent.attributes["sym_name"]).strip('"') if parent is not None else "?"


def instrument_checks(module: Any) -> list[Check]:
    """Replace every check op in `module` by probes of its values; the checks, in op order.

    Runs with the module's context and a location current."""
    checks = []
    for op in ops_in(module):
        kind = check_kind(op)
        if kind is None:
            continue
        operation = op.operation
        options = {
            key: str(operation.attributes[key])
            for key in operation.attributes
            if key not in ("value", "call_target_name", "has_side_effect", "api_version")
        }
        check = Check(
            kind,
            _function_name(op),
            *line_column(op.location),
            options,
            custom_call=operation.name == "stablehlo.custom_call",
        )
        with ir.InsertionPoint(operation), op.location:
            values = list(operation.operands)
            if "value" in operation.attributes:
                values.append(_materialize_value(operation, values[0].type))
            if kind in KINDS:
                prefix = f"{PROBE_PREFIX}{len(checks)}"
                check.values = [probe(v, f"{prefix}.{i}") for i, v in enumerate(values)]
        checks.append(check)
        operation.erase()
    return checks


def _materialize_value(operation: Any, result_type: Any) -> Any:
    """The op's `value` attribute as a `stablehlo.constant` before it.

    Complex elements attributes cannot be handed over in Python (the bindings raise on any
    access), so the attribute travels as the text MLIR printed for it."""
    text = operation.get_asm(print_generic_op_form=True)
    dictionary = text[text.index("{", text.index(")")) + 1 : text.rindex("} :")]
    (value,) = [
        a[len("value = ") :] for a in split_top_level(dictionary) if a.startswith("value = ")
    ]
    constant = ir.Operation.parse(
        f'"stablehlo.constant"() <{{value = {value}}}> : () -> {result_type}',
        context=operation.context,
    )
    ir.InsertionPoint(operation).insert(constant)
    return constant.results[0]


def _by_id(records: list[ProbeRecord]) -> dict[str, list[ProbeRecord]]:
    grouped: dict[str, list[ProbeRecord]] = defaultdict(list)
    for record in records:
        grouped[record.probe_id].append(record)
    return grouped


def evaluate_checks(
    checks: list[Check], records: list[ProbeRecord], user_records: list[ProbeRecord]
) -> list[CheckFailure]:
    """Every execution of every check judged; the failing checks with their first reason."""
    grouped = _by_id(records)
    failures = []
    for check in checks:
        if check.kind not in KINDS:
            failures.append(CheckFailure(check, f"check.{check.kind} is not a check shlo knows"))
            continue
        runs = min((len(grouped.get(v.ids[0], [])) for v in check.values), default=0)
        for execution in range(runs):
            values = [v.value(grouped, execution) for v in check.values]
            if problem := _judge(check, values, user_records):
                times = f" (execution {execution + 1} of {runs})" if runs > 1 else ""
                failures.append(CheckFailure(check, problem + times))
                break
    return failures


def _judge(check: Check, values: list[np.ndarray], user_records: list[ProbeRecord]) -> str | None:
    """None when the check holds, else why not (as upstream words it)."""
    actual = values[0]
    if check.kind == "expect_serialized_eq":
        expected = _serialized(check, user_records)
        if isinstance(expected, str):
            return expected
    else:
        expected = values[1]
    if actual.shape != expected.shape:
        return f"shapes differ: {actual.shape} (actual) vs {expected.shape} (expected)"
    if check.kind in ("expect_eq", "expect_eq_const", "expect_serialized_eq"):
        wrong = _not_equal(actual, expected)
        what = "Element values don't match"
    elif check.kind in ("expect_almost_eq", "expect_almost_eq_const"):
        default = _TOLERANCE["custom_call" if check.custom_call else "op"]
        tolerance = _number(check.options, "tolerance", default)
        wrong = ~_almost_equal(actual, expected, tolerance)
        what = f"Element values don't match with tolerance {tolerance:f}"
    else:
        if not _is_float(actual):
            return f"Unsupported element type for check.expect_close: {actual.dtype}"
        low = np.uint64(_integer(check.options, "min_ulp_difference", 0))
        high = np.uint64(_integer(check.options, "max_ulp_difference", _MAX_ULP))
        distance = ulp_difference(actual, expected)
        wrong = (distance > high) | (distance < low)
        what = f"Elements values don't match with respect to ULP difference in [{low}, {high}]"
    if not np.any(wrong):
        return None
    index = tuple(int(i) for i in np.argwhere(wrong)[0])
    return (
        f"{what}: {_show(actual[index])} (actual) vs {_show(expected[index])} (expected) at index "
        f"{list(index)}; {int(np.sum(wrong))} of {wrong.size} elements differ"
    )


def _serialized(check: Check, user_records: list[ProbeRecord]) -> np.ndarray | str:
    """The value a user probe wrote for `probe_id` at `iteration` (the line of that number in
    the probe index, as upstream reads it)."""
    probe_id = check.options.get("probe_id", "").strip('"')
    iteration = _integer(check.options, "iteration", 0)
    if iteration >= len(user_records) or probe_id not in user_records[iteration].probe_id:
        return f"Failed to find serialized data for probe {probe_id}."
    return load(user_records[iteration])


def _number(options: dict[str, str], key: str, default: float) -> float:
    """An attribute's number: `1.0e-04 : f64` -> 1e-4."""
    return float(options[key].split(":")[0]) if key in options else default


def _integer(options: dict[str, str], key: str, default: int) -> int:
    """An integer attribute: `3 : ui64` -> 3."""
    return int(options[key].split(":")[0]) if key in options else default


def _is_float(array: np.ndarray) -> bool:
    """Floats and complex numbers, ml_dtypes' small floats included (numpy kind 'V')."""
    return array.dtype.kind in "fcV"


def _parts(array: np.ndarray) -> list[np.ndarray]:
    """Complex values as their real and imaginary parts, others as themselves (floats in f64)."""
    if np.iscomplexobj(array):
        return [array.real.astype(np.float64), array.imag.astype(np.float64)]
    if array.dtype.kind in "biu":
        return [array]
    return [array.astype(np.float64)]


def _not_equal(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    pairs = zip(_parts(actual), _parts(expected), strict=True)
    return np.logical_or.reduce([a != e for a, e in pairs])


def _almost_equal(actual: np.ndarray, expected: np.ndarray, tolerance: float) -> np.ndarray:
    if actual.dtype.kind in "biu":
        return actual == expected
    pairs = zip(_parts(actual), _parts(expected), strict=True)
    return np.logical_and.reduce([_almost_equal_floats(a, e, tolerance) for a, e in pairs])


def _almost_equal_floats(f: np.ndarray, g: np.ndarray, tolerance: float) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        equal = f == g
        nan = np.isnan(f) | np.isnan(g)
        both_nan = np.isnan(f) & np.isnan(g)
        special = ~(np.isfinite(f) & (f != 0)) | ~(np.isfinite(g) & (g != 0))
        excluded = special & (f != 0) & (g != 0)  # non-finite against anything but equal
        close = (np.signbit(f) == np.signbit(g)) & (np.abs(f - g) <= tolerance)
    return equal | (nan & both_nan) | (~nan & ~excluded & close)


_NARROW_WIDTH = {"float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
ULP_INFINITE = np.iinfo(np.uint64).max  # upstream's distance between non-finite mismatches


def _bits(array: np.ndarray) -> tuple[np.ndarray, int]:
    """Each float's bit pattern as uint64 and the sign bit's position."""
    width = _NARROW_WIDTH.get(array.dtype.name, array.dtype.itemsize * 8)
    return array.view(_UNSIGNED[array.dtype.itemsize]).astype(np.uint64), width - 1


def _ulp_floats(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    f_bits, sign = _bits(f)
    g_bits, _ = _bits(g)
    magnitude = np.uint64((1 << sign) - 1)
    a, b = f_bits & magnitude, g_bits & magnitude
    same_sign = (f_bits >> np.uint64(sign)) == (g_bits >> np.uint64(sign))
    distance = np.where(same_sign, np.maximum(a, b) - np.minimum(a, b), a + b)
    wide_f, wide_g = f.astype(np.float64), g.astype(np.float64)
    finite = np.isfinite(wide_f) & np.isfinite(wide_g)
    both_nan = np.isnan(wide_f) & np.isnan(wide_g)
    distance = np.where(finite, distance, ULP_INFINITE)
    return np.where((f_bits == g_bits) | both_nan, np.uint64(0), distance).astype(np.uint64)


def ulp_difference(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Upstream's ULP difference per element (complex: the larger of the parts')."""
    if np.iscomplexobj(actual):
        return np.maximum(
            _ulp_floats(np.ascontiguousarray(actual.real), np.ascontiguousarray(expected.real)),
            _ulp_floats(np.ascontiguousarray(actual.imag), np.ascontiguousarray(expected.imag)),
        )
    return _ulp_floats(np.ascontiguousarray(actual), np.ascontiguousarray(expected))


def _show(element: Any) -> str:
    value = element.item() if hasattr(element, "item") else element
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if not isinstance(value, complex) else f"({value.real!r}, {value.imag!r})"
