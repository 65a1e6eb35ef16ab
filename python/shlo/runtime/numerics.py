"""Compare compiled outputs with PyTorch eager, output by output, at tolerances fit for dtype."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch.utils import _pytree as pytree

from shlo.errors import NumericsError

# (absolute, relative) tolerance by dtype; integers and booleans must match exactly.
TOLERANCES = {
    torch.float64: (1e-9, 1e-7),
    torch.float32: (1e-4, 1e-4),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (5e-2, 5e-2),
}


@dataclass(frozen=True)
class OutputCheck:
    """How one output compares: its path in the output structure and the largest errors."""

    path: str
    max_abs: float
    max_rel: float
    ok: bool

    def describe(self) -> str:
        verdict = "ok" if self.ok else "MISMATCH"
        return f"{self.path}: max abs {self.max_abs:.3g}, max rel {self.max_rel:.3g} ({verdict})"


def _as_tensor(value: Any) -> torch.Tensor:
    return value if isinstance(value, torch.Tensor) else torch.as_tensor(np.asarray(value))


def check_one(path: str, actual: Any, expected: Any) -> OutputCheck:
    actual, expected = _as_tensor(actual).detach().cpu(), _as_tensor(expected).detach().cpu()
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return OutputCheck(
            f"{path} ({tuple(actual.shape)} {actual.dtype}, expected "
            f"{tuple(expected.shape)} {expected.dtype})",
            float("inf"),
            float("inf"),
            False,
        )
    absolute, relative = TOLERANCES.get(expected.dtype, (0.0, 0.0))
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    error = (a - e).abs()
    max_abs = float(error.max()) if error.numel() else 0.0
    max_rel = float((error / e.abs().clamp_min(1e-30)).max()) if error.numel() else 0.0
    ok = bool(torch.all(error <= absolute + relative * e.abs()))
    return OutputCheck(path, max_abs, max_rel, ok)


def compare_outputs(actual: Any, expected: Any) -> list[OutputCheck]:
    """One check per output leaf, named by its pytree path (e.g. `['logits']`, `[1]`)."""
    expected_leaves = pytree.tree_flatten_with_path(expected)[0]
    actual_leaves = pytree.tree_leaves(actual)
    if len(actual_leaves) != len(expected_leaves):
        raise NumericsError(f"{len(actual_leaves)} outputs, expected {len(expected_leaves)}")
    return [
        check_one(pytree.keystr(path) or "output", got, want)
        for (path, want), got in zip(expected_leaves, actual_leaves, strict=True)
    ]


def assert_close(actual: Any, expected: Any) -> list[OutputCheck]:
    checks = compare_outputs(actual, expected)
    bad = [check.describe() for check in checks if not check.ok]
    if bad:
        raise NumericsError("outputs differ from PyTorch eager:\n  " + "\n  ".join(bad))
    return checks
