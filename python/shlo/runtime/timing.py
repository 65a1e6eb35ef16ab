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


def interleaved_ms(
    calls: dict[str, Callable[[], object]], runs: int, rounds: int = 5, warmup: int = 3
) -> dict[str, list[float]]:
    """Milliseconds of `runs` calls of each of `calls`, taken in `rounds` rounds that visit
    every one in turn (each round starting one further along), so that a slow moment of the
    machine hits them all alike; after `warmup` untimed calls of each."""
    for call in calls.values():
        for _ in range(warmup):
            call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            count = runs // rounds + (1 if round_index < runs % rounds else 0)
            for _ in range(count):
                start = time.perf_counter()
                calls[name]()
                times[name].append((time.perf_counter() - start) * 1e3)
    return times
