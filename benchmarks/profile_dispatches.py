"""Where a model's call spends its time inside IREE: every dispatch, timed in real calls.

Compiles one of `bench_models.py`'s models as its benchmark does (import, flatten, llvm-cpu),
runs the `.vmfb` with `iree-benchmark-module` on one thread (`local-sync`) under IREE's HAL
profiling (`--device_profiling_mode=host-execution`) and reads the bundle back with
`iree-profile dispatch`.  Prints, per dispatch: calls per run, milliseconds per run, its share
of the run, and for contractions (IREE names them `matmul_like_…`/`matvec_like_…` after their
loop sizes) the GFLOP/s they reach; then the same summed by kind.

Times are taken inside real calls, so weights come from memory as they do in use.  IREE's
isolated dispatch benchmarks (`--iree-hal-dump-executable-benchmarks-to`) allocate their
buffers and never write them, so their reads are not those of a real call and can report a
contraction well above the rate it reaches in the model.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/profile_dispatches.py bert [--runs 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from bench_models import MODELS, build

from shlo.support.machine import machine_line

# `main_dispatch_12_matmul_like_128x768x768_f32`: the kind, then the loop sizes
_NAME = re.compile(r"dispatch_\d+_(?P<kind>[a-z_]+?)_(?P<sizes>\d+(?:x\d+)*)(?=_|x?[a-z]|$)")
_CONTRACTIONS = ("matmul_like", "matvec_like", "batch_matmul", "conv")


def _tool(name: str) -> str:
    """A tool of the IREE runtime wheel, installed beside this interpreter."""
    return str(Path(sys.executable).parent / name)


def kind_and_flop(name: str) -> tuple[str, float | None]:
    """The dispatch's kind (`matmul_like`, `softmax`, `encode` …) and, for a contraction, its
    FLOPs: two per point of the loop nest its name gives."""
    if "_encode_" in name:
        return "encode", None
    found = _NAME.search(name)
    if found is None:
        return "other", None
    kind = found["kind"]
    if kind.startswith(_CONTRACTIONS):
        return kind, 2.0 * math.prod(int(s) for s in found["sizes"].split("x"))
    return kind, None


def compile_model(name: str, folder: Path) -> tuple[Path, list[Path]]:
    """The model's `.vmfb` and its example inputs as .npy files, written into `folder`."""
    import numpy as np

    from shlo.api import compile_module, flatten
    from shlo.frontend.torch_import import import_model
    from shlo.ir.output import AtomicOutput, write_file

    model, inputs = build(name)
    imported = import_model(model, inputs)
    compiled = compile_module(flatten(imported.module), "llvm-cpu")
    vmfb = folder / f"{name}.vmfb"
    write_file(vmfb, compiled.vmfb)
    paths = []
    for index, value in enumerate(inputs):
        paths.append(folder / f"input{index}.npy")
        with AtomicOutput(str(paths[-1])) as out:
            np.save(out.stream, value.numpy())
            out.commit()
    return vmfb, paths


def profile(
    vmfb: Path, inputs: list[Path], runs: int, folder: Path, device: str
) -> tuple[float, list[dict]]:
    """Milliseconds per call (the benchmark's own median) and iree-profile's dispatch groups,
    each with `per_run_ms` and `calls` (per run) added."""
    bundle = folder / "run.ireeprof"
    benchmark = subprocess.run(
        [
            _tool("iree-benchmark-module"),
            f"--module={vmfb}",
            f"--device={device}",
            "--function=main",
            *(f"--input=@{path}" for path in inputs),
            f"--benchmark_min_time={runs}x",
            "--benchmark_format=json",
            "--device_profiling_mode=host-execution",
            f"--device_profiling_output={bundle}",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(benchmark.stdout)["benchmarks"][0]
    iterations = result["iterations"]
    call_ms = result["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0}[result["time_unit"]]
    listed = subprocess.run(
        [_tool("iree-profile"), "dispatch", "--format=jsonl", str(bundle)],
        capture_output=True,
        text=True,
        check=True,
    )
    groups = []
    for line in listed.stdout.splitlines():
        record = json.loads(line)
        if record.get("type") == "host_dispatch_group":
            record["per_run_ms"] = record["total_ns"] / iterations / 1e6
            record["calls"] = record["count"] / iterations
            groups.append(record)
    return call_ms, sorted(groups, key=lambda g: -g["per_run_ms"])


def report(name: str, device: str, call_ms: float, groups: list[dict]) -> str:
    total = sum(g["per_run_ms"] for g in groups)
    lines = [
        f"{name}: {call_ms:.3f} ms a call on {device}; its dispatches take {total:.3f} ms "
        "of it, each from its first workgroup's start to its last one's end",
        f"{'dispatch':<58}{'calls':>6}{'ms/run':>9}{'share':>7}{'GFLOP/s':>9}",
    ]
    by_kind: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for group in groups:
        kind, flop = kind_and_flop(group["key"])
        rate = ""
        if flop is not None:
            rate = f"{flop * group['calls'] / (group['per_run_ms'] * 1e6):>9.1f}"
            by_kind[kind][1] += flop * group["calls"]
        by_kind[kind][0] += group["per_run_ms"]
        lines.append(
            f"{group['key'][:57]:<58}{group['calls']:>6.0f}{group['per_run_ms']:>9.3f}"
            f"{group['per_run_ms'] / call_ms:>6.1%}{rate}"
        )
    lines.append(f"{'by kind':<58}{'':>6}{'ms/run':>9}{'share':>7}{'GFLOP/s':>9}")
    for kind, (ms, flop) in sorted(by_kind.items(), key=lambda item: -item[1][0]):
        rate = f"{flop / (ms * 1e6):>9.1f}" if flop else ""
        lines.append(f"{kind:<58}{'':>6}{ms:>9.3f}{ms / call_ms:>6.1%}{rate}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=MODELS)
    parser.add_argument("--runs", type=int, default=5, help="profiled calls")
    parser.add_argument("--device", choices=("local-sync", "local-task"), default="local-sync")
    parser.add_argument("--keep", type=Path, help="keep the .vmfb, inputs and bundle here")
    args = parser.parse_args()
    print(f"machine: {machine_line()}")
    with tempfile.TemporaryDirectory(prefix="shlo-profile-") as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        vmfb, inputs = compile_model(args.model, folder)
        call_ms, groups = profile(vmfb, inputs, args.runs, folder, args.device)
    print(report(args.model, args.device, call_ms, groups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
