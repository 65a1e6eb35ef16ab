"""shlo-opt against the native tools in the wheels, measured in the same run.

Baselines: iree-opt from the IREE wheel and torch-mlir-opt from the torch-mlir wheel (the same
MLIR build as the bindings shlo-opt runs on, so its ratio is shlo's own overhead).  The tools
run interleaved, so one slow moment hits all three, in a user's environment (`USER_ENV`: with
Python's bytecode cache).  Two measurements, each with its ratios:
  1. `--inline --symbol-dce --canonicalize` on one generated StableHLO file of >= 50k ops:
     wall time (best of --repeat runs) and peak resident memory.
  2. start-up: the same pipeline on a real five-line file (`--version` would skip the work a
     user waits for), median of --startup-runs runs.
Goals: within 1.1x of iree-opt on the large file; the five-line file in 0.2 s.

    .venv/bin/python benchmarks/bench_opt.py [--ops 50000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench_startup import FIVE_LINES, USER_ENV

from shlo.pipeline.native_tools import tool_path
from shlo.support.machine import machine_line

PIPELINE = ["--inline", "--symbol-dce", "--canonicalize"]
OPS_PER_FUNCTION = 200


def generate(path: Path, ops: int) -> int:
    """A module of private helpers (some dead) called from main; returns its op count."""
    helpers = max(ops // OPS_PER_FUNCTION, 1)
    lines, count = [], 0
    for index in range(helpers):
        lines.append(f"func.func private @helper{index}(%x: tensor<16xf32>) -> tensor<16xf32> {{")
        lines.append(f"  %c = stablehlo.constant dense<{index}.5> : tensor<16xf32>")
        previous = "%x"
        for op in range((OPS_PER_FUNCTION - 3) // 2):
            lines.append(f"  %a{op} = stablehlo.add {previous}, %c : tensor<16xf32>")
            lines.append(f"  %m{op} = stablehlo.multiply %a{op}, %x : tensor<16xf32>")
            previous = f"%m{op}"
        lines.append(f"  return {previous} : tensor<16xf32>\n}}")
        count += OPS_PER_FUNCTION
    live = [i for i in range(helpers) if i % 5]  # every fifth helper is dead
    lines.append("func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {")
    previous = "%x"
    for index in live:
        lines.append(
            f"  %r{index} = call @helper{index}({previous}) : (tensor<16xf32>) -> tensor<16xf32>"
        )
        previous = f"%r{index}"
    lines.append(f"  return {previous} : tensor<16xf32>\n}}")
    path.write_text("\n".join(lines) + "\n")
    return count + len(live) + 2


def run(command: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one run of `command`, which must succeed."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=USER_ENV
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}\n{process.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss


def best_of(commands: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, int]]:
    """Best wall time and peak RSS per tool, the tools interleaved so drift hits all alike."""
    runs: dict[str, list[tuple[float, int]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            runs[name].append(run(command))
    return {name: (min(t for t, _ in r), max(m for _, m in r)) for name, r in runs.items()}


def _median_ms(runs: dict[str, list[float]]) -> dict[str, float]:
    return {name: 1e3 * statistics.median(times) for name, times in runs.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=50_000, help="ops in the generated file")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool (best is kept)")
    parser.add_argument(
        "--startup-runs", type=int, default=30, help="five-line runs per tool (median is kept)"
    )
    args = parser.parse_args(argv)
    tools = {
        "shlo-opt": shutil.which("shlo-opt", path=os.path.dirname(sys.executable)),
        "iree-opt": str(tool_path("iree-opt")),
        "torch-mlir-opt": str(tool_path("torch-mlir-opt")),
    }
    print(f"machine: {machine_line()}")
    with tempfile.TemporaryDirectory(prefix="shlo-bench-") as scratch:
        source, small = Path(scratch) / "large.mlir", Path(scratch) / "five.mlir"
        count = generate(source, args.ops)
        small.write_text(FIVE_LINES)
        print(
            f"input: {count} ops, {source.stat().st_size / 1e6:.1f} MB; "
            f"pipeline: {' '.join(PIPELINE)}; best of {args.repeat}"
        )
        outputs = {name: Path(scratch) / f"{name}.out.mlir" for name in tools}
        flatten = best_of(
            {
                name: [tool, str(source), *PIPELINE, "-o", str(outputs[name])]
                for name, tool in tools.items()
            },
            args.repeat,
        )
        texts = {outputs[name].read_text() for name in tools}
        startup: dict[str, list[float]] = {name: [] for name in tools}
        for _ in range(args.startup_runs):
            for name, tool in tools.items():
                startup[name].append(run([tool, str(small), *PIPELINE])[0])
    rows = [
        ("flatten wall time (s)", {n: t for n, (t, _) in flatten.items()}, "{:.3f}"),
        ("flatten peak RSS (MiB)", {n: m / 1024 for n, (_, m) in flatten.items()}, "{:.0f}"),
        (
            "five-line file (ms)",
            {n: statistics.median(t) * 1e3 for n, t in startup.items()},
            "{:.1f}",
        ),
    ]
    print(
        f"{'measure':<26}"
        + "".join(f"{name:>16}" for name in tools)
        + f"{'vs iree-opt':>13}{'vs torch-mlir-opt':>19}"
    )
    for label, values, fmt in rows:
        cells = "".join(f"{fmt.format(values[name]):>16}" for name in tools)
        ratios = (
            values["shlo-opt"] / values["iree-opt"],
            values["shlo-opt"] / values["torch-mlir-opt"],
        )
        print(f"{label:<26}{cells}{ratios[0]:>12.2f}x{ratios[1]:>18.2f}x")
    print(f"all three outputs identical: {len(texts) == 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
