"""jaxlib's LAPACK calls rewritten by shlo-jax-linalg, held to XLA:CPU (LAPACK) on properties
that do not depend on sign or order choices, as users call jnp.linalg and jax.scipy.linalg."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shlo.api import PipelineRunError
from shlo.jax import harness

pytest.importorskip("jax")

# (case, dtype) -> targets it runs on; llvm-cpu takes one compile each (slow).
CASES = [
    (name, dtype)
    for name in (
        "solve",
        "solve_batched_ill",
        "inv",
        "det",
        "slogdet",
        "lu",
        "lu_scipy",
        "cholesky",
        "cholesky_upper",
        "qr",
        "qr_complete",
        "qr_wide",
        "eigh",
        "eigvalsh_upper",
        "svd",
        "svd_full",
        "svdvals_ill",
        "triangular_solve",
        "triangular_solve_right",
        "tridiagonal_solve",
        "pinv",
    )
    for dtype in ("float32", "float64")
]
FAST = {
    ("lu", "float32"),
    ("cholesky", "float64"),
    ("qr", "float32"),
    ("eigh", "float32"),
    ("svd", "float64"),
}


def _export(folder: Path, chosen: list[tuple[str, str]]) -> dict[tuple[str, str], Path]:
    cases = [{"kind": "linalg", "name": n, "dtype": d} for n, d in chosen]
    answers = harness.export_cases(cases, folder, timeout=600)
    assert all(a.get("ok") for a in answers), answers
    return {(c["name"], c["dtype"]): folder / str(i) for i, c in enumerate(cases)}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """The cases the quick tests run, exported by JAX with XLA:CPU's outputs."""
    chosen = [*sorted(FAST), ("solve_batched_ill", "float32"), ("eig", "float32")]
    return _export(tmp_path_factory.mktemp("jax-linalg"), chosen)


@pytest.fixture(scope="module")
def exported_all(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    return _export(tmp_path_factory.mktemp("jax-linalg-all"), CASES)


def _tolerance(dtype: str, name: str) -> float:
    loose = 1e3 if "ill" in name or name in ("lu_scipy", "pinv") else 30.0
    return loose * float(np.finfo(dtype).eps)


def _close(got: np.ndarray, want: np.ndarray, tol: float) -> None:
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(got, np.broadcast_to(want, got.shape), rtol=tol, atol=tol * scale)


def _check(name: str, inputs: list, got: list, want: list, tol: float) -> None:
    """The properties each case must have; unique outputs are compared with XLA's."""
    a = inputs[0].astype(np.float64)
    if name in ("lu", "lu_scipy"):
        if name == "lu":
            lu, pivots, perm = got
            np.testing.assert_array_equal(perm, want[2])
            np.testing.assert_array_equal(pivots, want[1])
            m, n = lu.shape[-2:]
            k = min(m, n)
            lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
            upper = np.triu(lu[..., :k, :])
            rows = np.take_along_axis(a, perm[..., :, None], axis=-2)
            _close(lower @ upper, rows, tol)
        else:
            p, lower, upper = got
            np.testing.assert_array_equal(p, want[0])
            _close(p @ lower @ upper, a, tol)
    elif name.startswith("qr"):
        q, r = got
        _close(q @ r, a, tol)
        _close(np.swapaxes(q, -1, -2) @ q, np.eye(q.shape[-1]), tol)
        np.testing.assert_array_equal(np.tril(r, -1), 0)
    elif name == "eigh":
        w, v = got
        _close(w, want[0], tol)
        _close(a @ v, v * w[..., None, :], tol * 10)
    elif name in ("svd", "svd_full"):
        u, s, vh = got
        _close(s, want[1], tol)
        k = s.shape[-1]
        _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, tol * 10)
    else:  # a unique answer: solve, inv, det, slogdet, cholesky, triangular, eigvals, ...
        for g, w in zip(got, want, strict=True):
            _close(g, w, tol)


def _run(exported: dict, name: str, dtype: str, target: str) -> None:
    stem = exported[(name, dtype)]
    inputs, want = harness.arrays(stem)
    module = harness.prepared(stem.with_suffix(".mlir").read_text())
    assert "custom_call" not in str(module)
    got = harness.run(module, inputs, target)
    assert len(got) == len(want)
    _check(name, inputs, got, want, _tolerance(dtype, name))


@pytest.mark.parametrize(("name", "dtype"), sorted(FAST))
def test_rewrite_matches_xla_in_the_interpreter(exported: dict, name: str, dtype: str) -> None:
    _run(exported, name, dtype, "interpreter")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_every_case_in_the_interpreter(exported_all: dict, name: str, dtype: str) -> None:
    _run(exported_all, name, dtype, "interpreter")


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted({n for n, _ in CASES}))
def test_every_case_on_llvm_cpu(exported_all: dict, name: str) -> None:
    _run(exported_all, name, "float32", "llvm-cpu")


def test_solve_on_llvm_cpu(exported: dict) -> None:
    _run(exported, "solve_batched_ill", "float32", "llvm-cpu")


def test_call_without_portable_algorithm_is_refused_by_name(exported: dict) -> None:
    stem = exported[("eig", "float32")]
    with pytest.raises(PipelineRunError, match=r"lapack_sgeev_ffi \(general eigen-decomposition\)"):
        harness.prepared(stem.with_suffix(".mlir").read_text())
