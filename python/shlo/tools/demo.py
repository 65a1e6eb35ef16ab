"""The demo `tools/demo` runs: built-in PyTorch models through the whole path, checked.

Each model (an MLP, a small CNN with batch norm and pooling, a transformer encoder block) is
imported to StableHLO, flattened, compiled for every device available here and run, and its
outputs are compared with PyTorch eager; latencies are medians of several calls, and eager's
quartiles show its spread.  A table goes to stdout; the
artifacts (.mlir before and after flattening, .vmfb, report.json) to the output folder.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from shlo.backend.compile import Compiled, compile_module
from shlo.backend.targets import DEVICES, Target
from shlo.frontend.torch_import import import_model
from shlo.ir.output import write_file
from shlo.pipeline.run import flatten
from shlo.runtime.loaded import LoadedModule, available_devices
from shlo.runtime.numerics import compare_outputs
from shlo.runtime.timing import time_calls
from shlo.tools.demo_models import DEMO_MODELS, Example
from shlo.torch.compiled_model import CompiledModel

# Every device here, local-sync (one thread) beside local-task (a thread pool) included: on
# small models the pool's dispatch costs more than it saves, and the table shows both.
RUNS = 20


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _op_count(text: str) -> int:
    return sum(1 for line in text.splitlines() if " = " in line or "return" in line)


def demo_model(
    example: Example, folder: Path, devices: list[tuple[str, Target]]
) -> list[dict[str, Any]]:
    """One model through every device: the table rows it produces."""
    model, inputs = example.instantiate()
    with torch.no_grad():
        expected = model(*inputs)
        # before any IREE device exists: their worker threads (lavapipe's above all) take
        # cores from eager's threads while they live
        eager = time_calls(lambda: model(*inputs), RUNS)
    _progress(f"{example.name}: importing with torch.export + torch-mlir")
    imported = import_model(model, inputs)
    before = imported.module.text()
    imported.module = flatten(imported.module)
    after = imported.module.text()
    write_file(folder / f"{example.name}.mlir", before.encode())
    write_file(folder / f"{example.name}.flat.mlir", after.encode())
    _progress(f"{example.name}: flattened ({_op_count(before)} -> {_op_count(after)} ops)")
    rows = []
    builds: dict[Target, tuple[Compiled, float]] = {}
    for device, target in devices:
        if target not in builds:
            _progress(f"{example.name}: compiling for {target.value}")
            start = time.perf_counter()
            builds[target] = (compile_module(imported.module, target), time.perf_counter() - start)
        compiled, compile_s = builds[target]
        vmfb = folder / f"{example.name}.{target.value}.vmfb"
        write_file(vmfb, compiled.vmfb)
        _progress(f"{example.name}: running on {device}")
        runner = CompiledModel(imported, compiled, LoadedModule(compiled.vmfb, device))
        checks = compare_outputs(runner(*inputs), expected)
        latency = time_calls(functools.partial(runner, *inputs), RUNS)
        rows.append(
            {
                "model": example.name,
                "device": device,
                "target": target.value,
                "max_abs_error": max(c.max_abs for c in checks),
                "ok": all(c.ok for c in checks),
                "compile_s": compile_s,
                "latency_ms": statistics.median(latency),
                "latency_quartiles_ms": statistics.quantiles(latency, n=4)[::2],
                "eager_ms": statistics.median(eager),
                "eager_quartiles_ms": statistics.quantiles(eager, n=4)[::2],
                "vmfb": str(vmfb),
                "iree_compile": compiled.command_line(),
            }
        )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the fixed-width table the demo prints."""
    header = (
        f"{'model':<10}{'device':<12}{'max abs err':>12}{'check':>7}{'compile s':>11}"
        f"{'latency ms':>12}{'eager ms':>10}{'eager q1-q3':>15}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(
            f"{r['model']:<10}{r['device']:<12}{r['max_abs_error']:>12.2e}"
            f"{'pass' if r['ok'] else 'FAIL':>7}{r['compile_s']:>11.2f}"
            f"{r['latency_ms']:>12.3f}{r['eager_ms']:>10.3f}"
            f"{'{:.3f}-{:.3f}'.format(*r['eager_quartiles_ms']):>15}"
        )
    return "\n".join(lines)


def run_demo(output_dir: Path) -> int:
    output_dir.mkdir(parents=True, exist_ok=True)
    here = set(available_devices())
    devices = [(device, target) for device, target in DEVICES.items() if device in here]
    _progress(f"devices here: {', '.join(d for d, _ in devices)}; artifacts in {output_dir}")
    rows = [row for example in DEMO_MODELS for row in demo_model(example, output_dir, devices)]
    write_file(output_dir / "report.json", (json.dumps(rows, indent=2) + "\n").encode())
    print(table(rows))
    print(f"\nartifacts and report.json in {output_dir}")
    return 0 if all(row["ok"] for row in rows) else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shlo demo", description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=Path("out/demo"))
    return run_demo(parser.parse_args(argv).output_dir)


if __name__ == "__main__":
    sys.exit(main())
