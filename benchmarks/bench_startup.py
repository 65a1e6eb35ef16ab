"""Start-up of shlo's commands, against the native tool and the bare interpreter in the same run.

Each command runs as a user runs it (a fresh process, wall time, Python's bytecode cache in
use) on a real five-line StableHLO file where it reads input; the commands are interleaved in
rounds, so one slow moment hits all of them, and each row is the median over the rounds.
Baselines: `torch-mlir-opt` (the native tool of the MLIR build shlo-opt runs on), `python -c
pass` (the interpreter's own start) and `import bindings` (importing torch-mlir's StableHLO
bindings as a script would, which loads numpy with them; shlo defers numpy, so its commands
can come in under this row).
Goals: `shlo --help` and `shlo run --help` under 0.5 s, `shlo-opt` on the file under 0.2 s.

    .venv/bin/python benchmarks/bench_startup.py [--rounds 10] [--json startup.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from shlo.ir.output import write_file
from shlo.pipeline.native_tools import tool_path
from shlo.support.machine import describe_machine, machine_line

FIVE_LINES = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.multiply %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
# The environment commands run in: a user's, with Python's bytecode cache (pip writes it when it
# installs shlo, an editable install on its first run).  Where PYTHONDONTWRITEBYTECODE is set,
# every run would compile shlo's modules again, a cost no installed copy pays.
USER_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
# (what, goal in seconds or None for a baseline)
GOALS = {
    "shlo --help": 0.5,
    "shlo run --help": 0.5,
    "shlo-opt FILE": 0.2,
}


def commands(source: Path) -> dict[str, list[str]]:
    bin_dir = Path(sys.executable).parent
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        # the bindings as a plain script imports them, numpy included
        "import bindings": [sys.executable, "-c", "from torch_mlir._mlir_libs import _stablehlo"],
        "torch-mlir-opt FILE": [str(tool_path("torch-mlir-opt")), str(source)],
        "shlo-opt --version": [str(bin_dir / "shlo-opt"), "--version"],
        "shlo-opt FILE": [str(bin_dir / "shlo-opt"), str(source)],
        "shlo-translate FILE": [str(bin_dir / "shlo-translate"), str(source)],
        "shlo --help": [str(bin_dir / "shlo"), "--help"],
        "shlo run --help": [str(bin_dir / "shlo"), "run", "--help"],
    }


def wall_seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=USER_ENV
    )
    return time.perf_counter() - start


def measure(rounds: int, source: Path) -> dict[str, float]:
    """Median wall seconds of each command over `rounds` interleaved rounds (one warm-up)."""
    runs = commands(source)
    for command in runs.values():
        wall_seconds(command)  # warm the file cache and the pass-list cache
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, command in runs.items():
            times[name].append(wall_seconds(command))
    return {name: statistics.median(values) for name, values in times.items()}


def report(medians: dict[str, float]) -> list[str]:
    native = medians["torch-mlir-opt FILE"]
    lines = [f"{'command':<22}{'median s':>10}{'x native':>10}  goal"]
    for name, seconds in medians.items():
        goal = GOALS.get(name)
        verdict = "" if goal is None else f"< {goal} s: {'met' if seconds < goal else 'MISSED'}"
        lines.append(f"{name:<22}{seconds:>10.3f}{seconds / native:>10.1f}  {verdict}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the medians here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="shlo-bench-startup-") as scratch:
        source = Path(scratch) / "five.mlir"
        source.write_text(FIVE_LINES)
        medians = measure(args.rounds, source)
    print(f"machine: {machine_line()}; {args.rounds} interleaved rounds, wall time")
    print("\n".join(report(medians)))
    if args.json:
        payload = {"machine": describe_machine(), "median_s": medians}
        write_file(args.json, json.dumps(payload, indent=2).encode())
    return 0 if all(medians[name] < goal for name, goal in GOALS.items()) else 1


if __name__ == "__main__":
    sys.exit(main())
