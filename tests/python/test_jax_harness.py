"""tools/jax_sweep.py's statuses that the ratchets seldom see (a timeout, a crash, what JAX
cannot export), IREE on bfloat16 and scatter harnesses, and the comparison shlo's outputs are
held to.

The sweep's command line, JSON report, pass and refusal verdicts run whole in tools/check: the
`jax-back-compat` and `jax-harness` ratchets (`tools/check_conformance.py`), which fail on any
mismatch or on a rate below its floor."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shlo.jax import harness

pytest.importorskip("jax")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import jax_sweep  # noqa: E402  (tools/ is not a package)


def _sweep(tmp_path: Path, *args: str) -> tuple[int, str, list[dict]]:
    report = tmp_path / "sweep.json"
    command = [sys.executable, str(ROOT / "tools" / "jax_sweep.py"), "--json", str(report)]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=600)
    tests = json.loads(report.read_text())["tests"] if report.exists() else []
    return done.returncode, done.stdout, tests


@pytest.mark.slow
def test_a_case_past_its_time_is_a_timeout(tmp_path: Path) -> None:
    code, out, tests = _sweep(
        tmp_path,
        "--suite",
        "back-compat",
        "--target",
        "interpreter",
        "--filter",
        r"potrf.*\[f64\]",
        "--timeout",
        "0.01",
        "--jobs",
        "1",
    )
    assert [t["status"] for t in tests] == ["timeout"], out
    assert code == 0


def test_an_exception_of_shlos_is_that_cases_crash_in_one_line(tmp_path: Path) -> None:
    """A case whose judging raises (here: its arrays are missing) is a crash naming the
    exception, and the case after it is judged as if nothing had happened."""
    verdict = jax_sweep.judge_alone(tmp_path / "missing", "interpreter", 60)
    assert verdict["status"] == "crash"
    assert verdict["detail"].startswith("FileNotFoundError: ")


@pytest.mark.slow
def test_bfloat16_and_scatter_cases_match_xla_on_llvm_cpu(tmp_path: Path) -> None:
    """JAX's harnesses in bfloat16 (inputs and outputs), and scatters whose indexed dimensions
    are not leading (IREE rejected them before shlo-jax-scatter-dims): run by IREE, each
    matches XLA:CPU's outputs."""
    names = [
        "sin_shape_bfloat16_20_20_",
        "select_and_gather_add_dtypes_shape_bfloat16_4_6_selectprim_ge_windowdimensions_2_2_"
        "windowstrides_1_1_padding_0_0_0_0_basedilation_1_1_windowdilation_1_1_",
        *(
            f"scatter{op}_no_xla_unique_indices_shape_{dtype}_{shape}_dimension_numbers_"
            f"ScatterDimensionNumbers_update_window_dims_0_inserted_window_dims_{dims}_"
            f"scatter_dims_to_operand_dims_{dims}_operand_batching_dims_scatter_indices_"
            "batching_dims_indicesaresorted_False_uniqueindices_True_mode_GatherScatterMode_"
            "FILL_OR_DROP_enablexla_False"
            for op, dtype, shape, dims in [
                ("", "bfloat16", "4_2_3_scatterindices_3_2_updateshape_2", "0_2"),
                ("_mul", "int32", "5_6_7_scatterindices_0_1_2_3_4_0_1_2_updateshape_5_2_2", "1_2"),
            ]
        ),
    ]
    answers = harness.export_cases([{"kind": "harness", "name": n} for n in names], tmp_path, 600)
    assert answers == [{"ok": True}] * len(names)
    inputs, outputs = harness.arrays(tmp_path / "0")
    assert inputs[0].dtype == outputs[0].dtype == harness.BFLOAT16
    for index in range(len(names)):
        assert harness.judge(tmp_path / str(index), "llvm-cpu") == {"status": "pass"}


def test_what_jax_cannot_export_is_counted_apart(tmp_path: Path) -> None:
    cases = [{"kind": "linalg", "name": "no_such_case", "dtype": "float32"}]
    (answer,) = harness.export_cases(cases, tmp_path, timeout=300)
    assert answer["export_error"].startswith("KeyError")


@pytest.mark.parametrize(
    ("got", "want", "expected"),
    [
        (np.array([1.0, np.nan]), np.array([1.0, np.nan]), None),
        (np.array([1.0, 2.0]), np.array([1.0, np.nan]), "NaN in different places"),
        (np.array([1.0, 2.001]), np.array([1.0, 2.0]), "max abs error"),
        (np.array([[1.0, -2.0], [3.0, 4.0]]), np.array([[-1.0, -2.0], [-3.0, 4.0]]), None),
        (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[-1.0, 2.0], [3.0, 4.0]]), "max abs"),
        (np.array([3, 4], np.int32), np.array([3, 5], np.int32), "1 elements differ"),
        (np.zeros((2, 3)), np.zeros((3, 2)), "shape"),
        (np.zeros((2, 0)), np.zeros((2, 0)), None),
        (np.array([1.0, 2.0], "bfloat16"), np.array([1.0, 2.01], "bfloat16"), None),
        (np.array([1.0, 2.2], "bfloat16"), np.array([1.0, 2.0], "bfloat16"), "max abs error"),
        (np.array([np.nan, 1], "bfloat16"), np.array([1, 1], "bfloat16"), "NaN in different"),
    ],
)
def test_mismatch_allows_only_a_whole_vector_sign(
    got: np.ndarray, want: np.ndarray, expected: str | None
) -> None:
    found = harness.mismatch(got.astype(want.dtype), want)
    assert found == expected if expected is None else expected in str(found)
