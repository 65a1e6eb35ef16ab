"""The one-line summary the sweeps print (`torch_sweep.py`, `jax_sweep.py`)."""

from __future__ import annotations

from collections import Counter


def summary(results: list[dict], not_counted: tuple[str, ...], noun: str) -> tuple[str, float]:
    """The count by status and the pass rate over the results not counted apart."""
    counts = Counter(r["status"] for r in results)
    counted = len(results) - sum(counts[s] for s in not_counted)
    rate = counts["pass"] / counted if counted else 0.0
    parts = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    return f"{len(results)} {noun}: {parts} => {rate:.1%} of {counted} counted", rate
