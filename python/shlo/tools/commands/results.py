"""Results as iree-run-module prints them, saved to `--output` files and checked against
`--expected-output` values."""

from __future__ import annotations

import sys

import numpy as np

from shlo.runtime.value_syntax import format_value, parse_values, save_value, type_spec
from shlo.tools.commands import PROG

_PRINTED_ELEMENTS = 1024  # iree-run-module's --print_max_element_count


def report_results(results: list[np.ndarray], outputs: list[str], expected: list[str]) -> list[str]:
    """Print `results` as iree-run-module does, save them to `outputs`, and say which differ
    from `expected` (on stderr, and returned)."""
    for index, result in enumerate(results):
        print(f"result[{index}]: hal.buffer_view")  # as iree-run-module prints it
        print(format_value(result) if result.size <= _PRINTED_ELEMENTS else _too_many(result))
    for target, result in zip(outputs, results, strict=False):
        save_value(target, result)
    failures = _compare_expected(expected, results)
    for failure in failures:
        print(f"{PROG}: {failure}", file=sys.stderr)
    return failures


def _too_many(result: np.ndarray) -> str:
    return f"{type_spec(result)}=... ({result.size} elements: --output=@FILE.npy keeps them)"


def _compare_expected(expected: list[str], results: list[np.ndarray]) -> list[str]:
    failures = []
    for index, (want, result) in enumerate(zip(parse_values(expected), results, strict=False)):
        if want.shape != result.shape or not np.allclose(result, want, rtol=1e-4, atol=1e-4):
            error = (
                np.abs(result.astype(np.float64) - want).max()
                if want.shape == result.shape
                else "shape"
            )
            failures.append(
                f"result[{index}] differs from the expected output (max abs error {error})"
            )
    return failures
