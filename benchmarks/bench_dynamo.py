"""Per-call latency of torch.compile(backend="shlo") against eager and inductor, same run.

A tiny graph (x * 2 + 1 on 16 floats) measures per-call overhead; the demo models measure
throughput.  Also timed: dynamo's own floor, torch.compile with a backend that returns the
graph's own forward, which every backend pays (guards, frame handling).  The callables are
timed in interleaved rounds (this machine's speed drifts); printed as ratios.  Goals: tiny graph
within 2x of eager, demo models at or under eager.  A graph shlo cannot compile (it falls back
to eager) shows nan.

    .venv/bin/python benchmarks/bench_dynamo.py [--runs 200] [--rounds 5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import warnings
from collections.abc import Callable
from typing import Any

import torch

from shlo.runtime.timing import median_ms
from shlo.tools.demo_models import DEMO_MODELS
from shlo.torch.dynamo import ShloFallbackWarning


class Tiny(torch.nn.Module):
    def forward(self, x):
        return x * 2 + 1


def _own_forward(graph: torch.fx.GraphModule, example_inputs: list) -> Callable[..., Any]:
    return graph.forward


_BACKENDS = {"floor": _own_forward, "inductor": "inductor", "shlo": "shlo"}


def _per_call_us(column: str, model: torch.nn.Module, inputs: tuple, runs: int) -> float:
    """Median microseconds per call; each compiled variant alone in dynamo's cache.

    NaN when shlo fell back to eager for a graph: that time would not be shlo's."""
    call: Callable[..., Any] = model
    if column in _BACKENDS:
        torch._dynamo.reset()
        call = torch.compile(model, backend=_BACKENDS[column])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(*inputs)
        if any(issubclass(w.category, ShloFallbackWarning) for w in caught):
            return math.nan
    return median_ms(lambda: call(*inputs), runs) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="calls per round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    cases = [("tiny", Tiny(), (torch.randn(16),))]
    cases += [(e.name, *e.instantiate()) for e in DEMO_MODELS]
    columns = ("eager", "floor", "inductor", "shlo")
    print(
        f"{'graph':<10}"
        + "".join(f"{c + ' us':>12}" for c in columns)
        + f"{'shlo/eager':>12}{'shlo/floor':>12}{'shlo/inductor':>15}"
    )
    with torch.no_grad():
        for name, model, inputs in cases:
            rounds: dict[str, list[float]] = {c: [] for c in columns}
            for _ in range(args.rounds):
                for column in columns:
                    rounds[column].append(_per_call_us(column, model, inputs, args.runs))
            t = {c: statistics.median(v) for c, v in rounds.items()}
            print(
                f"{name:<10}"
                + "".join(f"{t[c]:>12.1f}" for c in columns)
                + f"{t['shlo'] / t['eager']:>11.2f}x{t['shlo'] / t['floor']:>11.2f}x"
                + f"{t['shlo'] / t['inductor']:>14.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
