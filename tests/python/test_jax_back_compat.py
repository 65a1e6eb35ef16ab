"""JAX's CPU export back-compatibility data through shlo: complex inputs and outputs, the
complex decompositions, Hessenberg and tridiagonal reductions, shape-polymorphic top-k, each
held to XLA's stored outputs; what shlo cannot reproduce refused by name; and how an
approximate top-k's indices are judged against a top-k's."""

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


def _sweep(tmp_path: Path, pattern: str) -> tuple[str, dict[str, dict]]:
    report = tmp_path / "sweep.json"
    command = [sys.executable, str(ROOT / "tools" / "jax_sweep.py"), "--json", str(report)]
    command += ["--suite", "back-compat", "--target", "interpreter", "--filter", pattern]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    tests = json.loads(report.read_text())["tests"] if report.exists() else []
    return done.stdout + done.stderr, {t["name"]: t for t in tests}


def test_complex_and_reduction_sets_match_xla_in_the_interpreter(tmp_path: Path) -> None:
    """Complex arguments and results cross the interpreter's real-only binding; Hermitian
    eigh and complex SVD (checked as decompositions), Hessenberg and tridiagonal reductions
    (checked value by value, LAPACK's reflectors and taus) match XLA."""
    out, tests = _sweep(tmp_path, r"(trsm|syev|gesdd|gehrd|sytrd_hetrd).*\[c64\]|gehrd.*\[f64\]")
    assert len(tests) == 6, out
    assert {name: t["status"] for name, t in tests.items()} == dict.fromkeys(tests, "pass"), out


def test_shape_polymorphic_sets_run_at_the_inputs_shapes(tmp_path: Path) -> None:
    """`stablehlo.dynamic_top_k` and `dynamic_approx_top_k` run once their k is known from the
    inputs' shapes; the dynamic random bit generator, whose bits are XLA's own, is refused."""
    out, tests = _sweep(tmp_path, r"^stablehlo_dynamic_")
    statuses = {name.split(".")[0]: t for name, t in tests.items()}
    assert statuses["stablehlo_dynamic_top_k"]["status"] == "pass", out
    assert statuses["stablehlo_dynamic_approx_top_k"]["status"] == "pass", out
    refused = statuses["stablehlo_dynamic_rng_bit_generator"]
    assert refused["status"] == "refused", out
    assert "stablehlo.dynamic_rng_bit_generator: its bits are XLA's own" in refused["detail"]


def _exported(tmp_path: Path, name: str) -> Path:
    answers = harness.export_cases([{"kind": "harness", "name": name}], tmp_path, 600)
    assert answers == [{"ok": True}]
    return tmp_path / "0"


def _with_outputs(stem: Path, outputs: list[np.ndarray]) -> None:
    """Replace the XLA outputs saved for a case."""
    with np.load(stem.with_suffix(".npz")) as saved:
        arrays = {name: saved[name] for name in saved.files}
    arrays |= {f"out{i}": a for i, a in enumerate(outputs)}
    np.savez(stem.with_suffix(".npz"), **arrays)


def test_approximate_top_k_indices_may_point_at_any_equal_value(tmp_path: Path) -> None:
    """Float16 values tie; where shlo's index differs from XLA's but points at an equal value
    the case passes (JAX documents the indices of `approx_max_k` only as those of the values),
    and an index pointing at another value is a mismatch."""
    stem = _exported(tmp_path, "approx_top_k_large_True_max_True_op_float16_16_256_")
    inputs, (values, indices) = harness.arrays(stem)
    operand = inputs[0]
    # the indices of a stable sort, as shlo computes them, with the first tie swapped
    stable = np.argsort(-operand.astype(np.float32), axis=-1, kind="stable")
    stable = stable[:, : indices.shape[1]].astype(indices.dtype)
    tied = [
        (row, a)
        for row in range(stable.shape[0])
        for a in range(stable.shape[1] - 1)
        if operand[row, stable[row, a]] == operand[row, stable[row, a + 1]]
    ]
    assert tied
    row, a = tied[0]
    swapped = stable.copy()
    swapped[row, [a, a + 1]] = swapped[row, [a + 1, a]]
    _with_outputs(stem, [values, swapped])
    assert harness.judge(stem, "interpreter") == {"status": "pass"}
    others = [i for i in range(operand.shape[1]) if operand[0, i] != operand[0, indices[0, 0]]]
    wrong = indices.copy()
    wrong[0, 0] = others[0]
    _with_outputs(stem, [values, wrong])
    verdict = harness.judge(stem, "interpreter")
    assert verdict["status"] == "mismatch"
    assert "indices point at other values" in verdict["detail"]


def test_top_k_indices_keep_the_order_jax_documents(tmp_path: Path) -> None:
    """`lax.top_k` documents equal values in index order: its indices are held to XLA's one
    by one, so two tied indices swapped are a mismatch."""
    stem = _exported(tmp_path, "top_k_dtypes_inshape_float32_5_3_k_2")
    inputs, (values, indices) = harness.arrays(stem)
    operand = inputs[0].copy()
    operand[0, indices[0, 1]] = operand[0, indices[0, 0]]  # a tie in row 0
    order = np.argsort(-operand, axis=-1, kind="stable")[:, :2].astype(indices.dtype)
    with np.load(stem.with_suffix(".npz")) as saved:
        arrays = {name: saved[name] for name in saved.files}
    arrays["in0"] = operand
    np.savez(stem.with_suffix(".npz"), **arrays)
    top = np.take_along_axis(operand, order, axis=-1)
    _with_outputs(stem, [top, order])
    assert harness.judge(stem, "interpreter") == {"status": "pass"}
    _with_outputs(stem, [top, order[:, ::-1].copy()])
    assert harness.judge(stem, "interpreter")["status"] == "mismatch"
