"""Per-call latency of torch.compile(backend="shlo") against eager and inductor, same run.

A tiny graph (x * 2 + 1 on 16 floats) measures per-call overhead; the demo models measure
throughput.  Printed as ratios to eager (goals: tiny graph within 2x of eager, demo models at
or under eager).

    .venv/bin/python benchmarks/bench_dynamo.py [--runs 200]
"""

from __future__ import annotations

import argparse
import sys

import torch

from shlo.models import DEMO_MODELS
from shlo.timing import median_ms


class Tiny(torch.nn.Module):
    def forward(self, x):
        return x * 2 + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    cases = [("tiny", Tiny(), (torch.randn(16),))]
    cases += [(e.name, *e.instantiate()) for e in DEMO_MODELS]
    print(
        f"{'graph':<10}{'eager us':>10}{'inductor us':>13}{'shlo us':>10}"
        f"{'shlo/eager':>12}{'shlo/inductor':>15}"
    )
    with torch.no_grad():
        for name, model, inputs in cases:
            times = {"eager": median_ms(lambda m=model, i=inputs: m(*i), args.runs)}
            for backend in ("inductor", "shlo"):
                torch._dynamo.reset()
                compiled = torch.compile(model, backend=backend)
                times[backend] = median_ms(lambda c=compiled, i=inputs: c(*i), args.runs)
            t = {k: v * 1e3 for k, v in times.items()}
            print(
                f"{name:<10}{t['eager']:>10.1f}{t['inductor']:>13.1f}{t['shlo']:>10.1f}"
                f"{t['shlo'] / t['eager']:>11.2f}x{t['shlo'] / t['inductor']:>14.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
