"""tools/jax_sweep.py on a tiny slice of JAX's back-compatibility data: each status it can give,
its JSON report and exit code, and the comparison it holds shlo's outputs to."""

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


def _sweep(tmp_path: Path, *args: str) -> tuple[int, str, list[dict]]:
    report = tmp_path / "sweep.json"
    command = [sys.executable, str(ROOT / "tools" / "jax_sweep.py"), "--json", str(report)]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=600)
    tests = json.loads(report.read_text())["tests"] if report.exists() else []
    return done.returncode, done.stdout, tests


def test_back_compat_slice_passes_or_is_refused_by_name(tmp_path: Path) -> None:
    pattern = r"(potrf|geev).*\[f32\]"
    code, out, tests = _sweep(
        tmp_path, "--suite", "back-compat", "--target", "interpreter", "--filter", pattern
    )
    assert code == 0, out
    statuses = {t["name"].split(".")[0]: t for t in tests}
    assert statuses["cpu_cholesky_lapack_potrf"]["status"] == "pass"
    refused = statuses["cpu_eig_lapack_geev"]
    assert refused["status"] == "refused"
    assert "lapack_sgeev_ffi (general eigen-decomposition)" in refused["detail"]
    assert "2 cases: pass 1, refused 1 => 50.0% of 2 counted" in out


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
    ],
)
def test_mismatch_allows_only_a_whole_vector_sign(
    got: np.ndarray, want: np.ndarray, expected: str | None
) -> None:
    found = harness.mismatch(got.astype(want.dtype), want)
    assert found == expected if expected is None else expected in str(found)
