"""Steady-state latency: warm up, then time each call (the demo, `shlo bench`, benchmarks)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def time_calls(call: Callable[[], object], runs: int, warmup: int = 3) -> list[float]:
    """Milliseconds of each of `runs` calls, after `warmup` untimed ones."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def median_ms(call: Callable[[], object], runs: int, warmup: int = 3) -> float:
    return statistics.median(time_calls(call, runs, warmup))
