"""Classes of ops from PyTorch's OpInfo database, each checked on the database's own samples
against eager through the sweep's judge (`tools/torch_sweep_cases.py`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import torch_sweep_cases as cases  # noqa: E402


def _verdicts(key: str, dtype: torch.dtype, count: int) -> list[dict[str, Any]]:
    """The sweep's verdicts on the first `count` of the entry's OpInfo samples in `dtype`."""
    verdicts: list[dict[str, Any]] = cases.judge_all(cases.samples(key, dtype)[:count], "llvm-cpu")
    return verdicts


@pytest.mark.parametrize("key", ["op:fft.fftshift", "op:fft.ifftshift"])
def test_ops_torch_mlir_cannot_lower_take_pytorchs_own_decomposition(key: str) -> None:
    """torch.export keeps composite ops its decomposition table does not name, and torch-mlir
    has no lowering for these: PyTorch's own composite kernel (a roll) is used instead."""
    verdicts = _verdicts(key, torch.float32, 3)
    assert verdicts and all(v == {"status": "pass"} for v in verdicts), verdicts


def test_the_conjugate_of_a_complex_tensor_is_lowered_from_its_parts() -> None:
    """`conj_physical`, which torch's decompositions of `ihfft` reach, has no torch-mlir
    lowering; it is computed from the real and (negated) imaginary parts."""
    verdicts = _verdicts("op:conj_physical", torch.complex64, 3)
    assert verdicts and all(v == {"status": "pass"} for v in verdicts), verdicts
