"""The `check` dialect's ops, evaluated wherever they run.

No binding has the dialect, so before a program runs each check op (in any function, any
region, under `interpreter.run_parallel`) is replaced by `interpreter.probe` ops on what it
compares (its operands, and the constant it expects, materialized as a `stablehlo.constant`).
Every execution of the op leaves its values in the probe index; afterwards each execution is
judged as upstream's CheckOps.cpp judges it:

- `expect_eq[_const]`: element by element equality (NaN never equals; 0 equals -0);
- `expect_almost_eq[_const]`: equal, both NaN, or both finite and |a - b| <= tolerance
  (default 1e-4; complex parts apart; floats and complex numbers only);
- `expect_close`: ULP distance within [min_ulp_difference, max_ulp_difference]
  (defaults 0 and 1), signs counted apart (f8E8M0FNU has none), NaN vs NaN 0, other
  non-finite mismatches infinite;
- `expect_serialized_eq`: equal to the value a user probe wrote (`--probe-output-dir`), whose
  index line must name the same type.

`stablehlo.custom_call @check.*` (two operands) is evaluated as StablehloTranslateMain.cpp
does: expect_almost_eq with tolerance 1e-3, expect_close with ULPs 0..3, and `@check.eq`
(exact for integers, else tolerance 1e-4; its result is true).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import ml_dtypes
import numpy as np

from shlo.interpreter.probes import Probed, ProbeRecord, load, probe
from shlo.interpreter.tensor_text import split_tensor_type
from shlo.ir.check_dialect import check_kind
from shlo.ir.diagnostics import line_column
from shlo.ir.edit import create, ops_in
from shlo.ir.stablehlo import ir
from shlo.ir.text import split_top_level

PROBE_PREFIX = "shlo.check."
_TOLERANCE = {"op": 1e-4, "custom_call": 1e-3}
_MAX_ULP = {"op": 1, "custom_call": 3}  # CheckOps.td's default; StablehloTranslateMain's
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
    type: str = ""  # the first operand's type, as MLIR prints it
    problem: str = ""  # why it cannot be evaluated at all

    @property
    def element(self) -> str:
        return split_tensor_type(self.type.removeprefix("tensor<").removesuffix(">"))[1]


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
    checks: list[Check] = []
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
        custom = operation.name == "stablehlo.custom_call"
        operands = list(operation.operands)
        check = Check(kind, _function_name(op), *line_column(op.location), options, custom)
        check.type = str(operands[0].type) if operands else ""
        check.problem = _problem(operation, kind, custom)
        with ir.InsertionPoint(operation), op.location:
            if not check.problem:
                if "value" in operation.attributes:
                    operands.append(_materialize_value(operation, operands[0].type))
                prefix = f"{PROBE_PREFIX}{len(checks)}"
                check.values = [probe(v, f"{prefix}.{i}") for i, v in enumerate(operands)]
            for result in operation.results:  # custom_call @check.eq's: true when it holds
                text = f"dense<true> : {result.type}"
                value = create("stablehlo.constant", result.type, [], {"value": _parse(text)})
                result.replace_all_uses_with(value)
        checks.append(check)
        operation.erase()
    return checks


def _parse(text: str) -> Any:
    return ir.Attribute.parse(text)


def _problem(operation: Any, kind: str, custom: bool) -> str:
    """Why a check op cannot be evaluated, as upstream's interpreter fallback says it."""
    count = len(operation.operands)
    if custom and (count != 2 or kind not in KINDS | {"eq"} or kind.endswith("_const")):
        return f"Unsupported custom call: @check.{kind} with {count} operands"
    if custom and kind == "eq" and [str(r.type) for r in operation.results] != ["tensor<i1>"]:
        return "Unsupported custom call: @check.eq must give one tensor<i1>"
    if not custom and kind not in KINDS:
        return f"check.{kind} is not a check shlo knows"
    if count != (1 if kind.endswith("_const") or kind == "expect_serialized_eq" else 2):
        return f"check.{kind} takes {1 if kind.endswith('_const') else 2} operands, not {count}"
    return ""


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
        if check.problem:
            failures.append(CheckFailure(check, check.problem))
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
    elif check.kind == "eq" and actual.dtype.kind in "biu":  # custom_call @check.eq: i1 too
        wrong = _not_equal(actual, expected)
        what = "Element values don't match"
    elif not _is_float(actual):  # upstream aborts on these in its float comparisons
        return f"Unsupported element type for check.{check.kind}: {check.element}"
    elif check.kind == "eq":
        tolerance = _TOLERANCE["op"]
        wrong = ~_almost_equal(actual, expected, tolerance)
        what = f"Element values don't match with tolerance {tolerance:f}"
    elif check.kind in ("expect_almost_eq", "expect_almost_eq_const"):
        default = _TOLERANCE["custom_call" if check.custom_call else "op"]
        tolerance = _number(check.options, "tolerance", default)
        wrong = ~_almost_equal(actual, expected, tolerance)
        what = f"Element values don't match with tolerance {tolerance:f}"
    else:
        low = np.uint64(_integer(check.options, "min_ulp_difference", 0))
        default_max = _MAX_ULP["custom_call" if check.custom_call else "op"]
        high = np.uint64(_integer(check.options, "max_ulp_difference", default_max))
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
    """The value a user probe wrote for `probe_id` at `iteration`: line `iteration` of the
    probe index, which must mention the id, in the checked value's type (as upstream reads
    it, CheckOps.cpp)."""
    probe_id = check.options.get("probe_id", "").strip('"')
    iteration = _integer(check.options, "iteration", 0)
    if iteration >= len(user_records) or probe_id not in _index_line(user_records[iteration]):
        return f"Failed to find serialized data for probe {probe_id}."
    record = user_records[iteration]
    if record.type != check.type:
        return (
            f"Serialized types don't match: {check.type} (actual) vs {record.type} (expected) "
            f"for probe {probe_id}."
        )
    return load(record)


def _index_line(record: ProbeRecord) -> str:
    return f"{record.probe_id},{record.type},{record.path}"


def _number(options: dict[str, str], key: str, default: float) -> float:
    """An f64 attribute's number: `1.0e-04 : f64` -> 1e-4; `0x7FF8000000000000 : f64` (as MLIR
    spells NaN and infinities) -> nan."""
    if key not in options:
        return default
    text = options[key].split(":")[0].strip()
    if text.lower().startswith("0x"):
        return float(np.array(int(text, 16), np.uint64).view(np.float64))
    return float(text)


def _integer(options: dict[str, str], key: str, default: int) -> int:
    """An integer attribute: `3 : ui64` -> 3."""
    return int(options[key].split(":")[0]) if key in options else default


def _is_float(array: np.ndarray) -> bool:
    """Floats and complex numbers, ml_dtypes' small floats included (numpy kind 'V')."""
    return array.dtype.kind in "fcV"


def _parts(array: np.ndarray) -> list[np.ndarray]:
    """Complex values as their real and imaginary parts, others as themselves (floats in f64)."""
    if np.iscomplexobj(array):
        return [_wide(array.real), _wide(array.imag)]
    if array.dtype.kind in "biu":
        return [array]
    return [_wide(array)]


def _wide(array: np.ndarray) -> np.ndarray:
    """Floats in f64, exactly (numpy warns of NaN payloads it drops, which no rule reads)."""
    with np.errstate(invalid="ignore"):
        return array.astype(np.float64)


def _not_equal(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    pairs = zip(_parts(actual), _parts(expected), strict=True)
    return cast(np.ndarray, np.logical_or.reduce([a != e for a, e in pairs]))


def _almost_equal(actual: np.ndarray, expected: np.ndarray, tolerance: float) -> np.ndarray:
    pairs = zip(_parts(actual), _parts(expected), strict=True)
    return cast(
        np.ndarray, np.logical_and.reduce([_almost_equal_floats(a, e, tolerance) for a, e in pairs])
    )


def _almost_equal_floats(f: np.ndarray, g: np.ndarray, tolerance: float) -> np.ndarray:
    """Upstream's areApproximatelyEqual (Element.cpp): equal (0 == -0), or both NaN, or both
    finite and |f - g| <= tolerance (in f64; no sign rule: -1e-15 is close to 0)."""
    with np.errstate(invalid="ignore", over="ignore"):
        both_nan = np.isnan(f) & np.isnan(g)
        close = np.isfinite(f) & np.isfinite(g) & (np.abs(f - g) <= tolerance)
        return cast(np.ndarray, (f == g) | both_nan | close)


_NARROW_WIDTH = {"float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
ULP_INFINITE = np.iinfo(np.uint64).max  # upstream's distance between non-finite mismatches


def _bits(array: np.ndarray) -> tuple[np.ndarray, int]:
    """Each float's bit pattern as uint64 and the sign bit's position (its width for a type
    with no sign, such as f8E8M0FNU, whose values APFloat never counts negative)."""
    width = _NARROW_WIDTH.get(array.dtype.name, array.dtype.itemsize * 8)
    finfo: Callable[[np.dtype], Any] = ml_dtypes.finfo  # untyped in ml_dtypes
    signed = float(finfo(array.dtype).min) < 0
    return array.view(_UNSIGNED[array.dtype.itemsize]).astype(np.uint64), width - signed


def _ulp_floats(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    f_bits, sign = _bits(f)
    g_bits, _ = _bits(g)
    magnitude = np.uint64((1 << sign) - 1)
    a, b = f_bits & magnitude, g_bits & magnitude
    same_sign = (f_bits >> np.uint64(sign)) == (g_bits >> np.uint64(sign))
    distance = np.where(same_sign, np.maximum(a, b) - np.minimum(a, b), a + b)
    wide_f, wide_g = _wide(f), _wide(g)
    finite = np.isfinite(wide_f) & np.isfinite(wide_g)
    both_nan = np.isnan(wide_f) & np.isnan(wide_g)
    distance = np.where(finite, distance, ULP_INFINITE)
    return np.where((f_bits == g_bits) | both_nan, np.uint64(0), distance).astype(np.uint64)


def ulp_difference(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Upstream's ULP difference per element (complex: the larger of the parts')."""
    if np.iscomplexobj(actual):
        larger: np.ndarray = np.maximum(
            _ulp_floats(np.ascontiguousarray(actual.real), np.ascontiguousarray(expected.real)),
            _ulp_floats(np.ascontiguousarray(actual.imag), np.ascontiguousarray(expected.imag)),
        )
        return larger
    return _ulp_floats(np.ascontiguousarray(actual), np.ascontiguousarray(expected))


def _show(element: Any) -> str:
    value = element.item() if hasattr(element, "item") else element
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if not isinstance(value, complex) else f"({value.real!r}, {value.imag!r})"
