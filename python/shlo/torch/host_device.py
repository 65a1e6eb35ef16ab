"""The host device an llvm-cpu module runs fastest on: one thread (local-sync) or a thread
pool (local-task).

On a small graph the pool's wake-ups cost more than it saves, so both are timed on the example
inputs and the faster one is kept; a call that takes long on the pool is mostly compute, which
the pool parallelizes, and stays there untimed.  The timer is a parameter, so the choice is
tested with made-up timings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import torch

from shlo.backend.targets import HOST_DEVICES
from shlo.runtime.timing import median_ms
from shlo.torch.compiled_model import CompiledModel

# Milliseconds of one call on the pool above which the pool is kept without timing the rest:
# about a thousand times the pool's cost per dispatch (benchmarks/README.md).
POOL_WINS_MS = 20.0
# (candidate, a call of it on the example inputs, runs) -> milliseconds per call
Timer = Callable[[CompiledModel, Callable[[], object], int], float]


def time_call(candidate: CompiledModel, call: Callable[[], object], runs: int) -> float:
    """The median of `runs` timed calls after one untimed call."""
    return median_ms(call, runs, warmup=1)


def on_faster_host_device(
    compiled: CompiledModel,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    timer: Timer = time_call,
) -> CompiledModel:
    """`compiled`, or the same module on the other host device when that runs it faster.
    A model that updates state as it runs is not timed: each timed call would update it."""
    if compiled.imported.mutations:
        return compiled
    with torch.no_grad():
        on_pool = compiled.loaded.device_name == "local-task"
        if on_pool and timer(compiled, lambda: compiled(*args, **kwargs), 1) > POOL_WINS_MS:
            return compiled
        candidates = [compiled] + [
            compiled.on_device(device)
            for device in HOST_DEVICES
            if device != compiled.loaded.device_name
        ]
        best: dict[int, float] = {}
        for _ in range(3):  # interleaved rounds: one slow moment does not decide
            for index, candidate in enumerate(candidates):
                time = timer(candidate, functools.partial(candidate, *args, **kwargs), 5)
                best[index] = min(best.get(index, time), time)
    return candidates[min(best, key=best.__getitem__)]
