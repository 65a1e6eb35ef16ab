"""Import + compile time and peak memory as weights grow: inline constants against weights that
never enter the IR (an IREE parameter archive, .irpa), in the same run.

Models are stacks of square linear layers from ~8 MB to ~2 GB of f32 weights.  Each
configuration runs as a deployment would, in two fresh processes: the build (torch.export +
torch-mlir + flatten, then compile for llvm-cpu, with iree-compile and IREE's parameter encoder
as its children) holding the PyTorch model, then the run (load the .vmfb and its archives, call
it, check against eager's output) without it.  Printed: seconds per stage, each process's peak
RSS (the build's includes its children) and its ratio to the weight bytes, the median call
time, and .vmfb and archive sizes.  Goal: with an archive, compile time and memory stay roughly
flat and peak memory under 1.5x the weights in every process.  The header names the machine;
`--json` writes the rows with it, `--chart` a PNG of the curves (matplotlib).

    .venv/bin/python benchmarks/bench_scale.py [--sizes 8M,128M,512M,2G] \
        [--json out/bench_scale.json] [--chart out/bench_scale.png]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shlo.ir.output import atomic_path, write_file
from shlo.support.machine import describe_machine, machine_line, machine_title

# name -> (width, depth): depth * width^2 * 4 bytes of weights
SIZES = {"8M": (1024, 2), "128M": (2048, 8), "512M": (4096, 8), "2G": (8192, 8)}


def _peak_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def _build(width: int, depth: int, mode: str, scratch: Path) -> dict:
    """Import and compile; the .vmfb, the input and eager's output are left in `scratch`."""
    import numpy as np
    import torch

    from shlo.api import compile_module, flatten
    from shlo.frontend.torch_import import import_model

    torch.manual_seed(0)
    layers = [torch.nn.Linear(width, width, bias=False) for _ in range(depth)]
    model = torch.nn.Sequential(*layers).eval()
    x = torch.randn(4, width)
    with torch.no_grad():
        np.save(scratch / "expected.npy", model(x).numpy())
    np.save(scratch / "x.npy", x.numpy())
    start = time.perf_counter()
    external = mode == "archive"
    imported = import_model(model, (x,), weights="external" if external else "inline")
    imported.module = flatten(imported.module)
    imported_at = time.perf_counter()
    archive = scratch / "weights.irpa" if external else None
    compiled = compile_module(
        imported.module, "llvm-cpu", parameters=archive, weights=imported.weights
    )
    compiled_at = time.perf_counter()
    (scratch / "model.vmfb").write_bytes(compiled.vmfb)
    return {
        "import_s": imported_at - start,
        "compile_s": compiled_at - imported_at,
        "vmfb_mb": len(compiled.vmfb) / 2**20,
        "irpa_mb": sum(p.stat().st_size for p in scratch.glob("*.irpa")) / 2**20,
        "build_peak_mb": max(_peak_mb(resource.RUSAGE_SELF), _peak_mb(resource.RUSAGE_CHILDREN)),
    }


def _run(scratch: Path) -> dict:
    """Load the compiled model and its archives, call it, compare with eager's output."""
    import numpy as np

    from shlo.runtime.loaded import LoadedModule
    from shlo.runtime.timing import median_ms

    archive = scratch / "weights.irpa"
    loaded = LoadedModule(
        scratch / "model.vmfb", "local-task", archive if archive.exists() else None
    )
    x = np.load(scratch / "x.npy")
    (output,) = loaded("main", x)
    return {
        "max_abs_error": float(np.abs(output - np.load(scratch / "expected.npy")).max()),
        "call_ms": median_ms(lambda: loaded("main", x), runs=10),
        "run_peak_mb": _peak_mb(resource.RUSAGE_SELF),
    }


def _measure(size: str, mode: str) -> dict:
    """One configuration: its build, then its run, each in a fresh process."""
    width, depth = SIZES[size]
    result = {"weights_mb": depth * width * width * 4 / 2**20}
    with tempfile.TemporaryDirectory(prefix="shlo-scale-") as scratch:
        for stage in (f"--build={width},{depth},{mode},{scratch}", f"--run={scratch}"):
            done = subprocess.run([sys.executable, __file__, stage], capture_output=True, text=True)
            if done.returncode != 0:
                lines = done.stderr.strip().splitlines()
                return {"failed": lines[-1] if lines else "died"}
            result.update(json.loads(done.stdout.strip().splitlines()[-1]))
    return result


def chart(rows: list[dict], path: Path) -> None:
    """Build time and each process's peak memory per weight byte against the weights' size,
    inline and with an archive."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    inches = 10
    figure, (seconds, memory) = plt.subplots(1, 2, figsize=(inches, 4))
    for mode, style in (("inline", "-o"), ("archive", "--s")):
        done = [r for r in rows if r["mode"] == mode and "failed" not in r]
        weights = [r["weights_mb"] for r in done]
        seconds.plot(weights, [r["import_s"] + r["compile_s"] for r in done], style, label=mode)
        for key, label in (("build_peak_mb", "build"), ("run_peak_mb", "run")):
            ratios = [r[key] / r["weights_mb"] for r in done]
            memory.plot(weights, ratios, style, label=f"{label}, {mode}")
    memory.axhline(1.5, color="gray", linestyle=":", linewidth=0.8, label="goal: 1.5x")
    for axes, label in ((seconds, "import + compile, s"), (memory, "peak RSS / weight bytes")):
        axes.set_xscale("log")
        axes.set_yscale("log")
        axes.set_xlabel("weights, MB")
        axes.set_ylabel(label)
        axes.legend(fontsize=8)
    figure.suptitle(machine_title("shlo build and run as weights grow", inches), fontsize=9)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as scratch:
        figure.savefig(scratch, dpi=120, format=path.suffix.lstrip(".") or "png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8M,128M,512M,2G")
    parser.add_argument("--json", type=Path, help="write the machine and the rows here")
    parser.add_argument("--chart", type=Path, help="write a PNG of the curves here")
    parser.add_argument("--build", help=argparse.SUPPRESS)
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        width, depth, mode, scratch = args.build.split(",")
        print(json.dumps(_build(int(width), int(depth), mode, Path(scratch))))
        return 0
    if args.run:
        print(json.dumps(_run(Path(args.run))))
        return 0
    print(f"machine: {machine_line()}")
    print(
        f"{'weights':>8} {'mode':<8}{'import s':>9}{'compile s':>10}{'build MB':>14}"
        f"{'run MB':>14}{'call ms':>9}{'vmfb MB':>9}{'irpa MB':>9}{'max err':>9}"
    )
    rows = []
    for size in args.sizes.split(","):
        for mode in ("inline", "archive"):
            r = {"size": size, "mode": mode, **_measure(size, mode)}
            rows.append(r)
            if "failed" in r:
                print(f"{size:>8} {mode:<8}failed: {r['failed'][:100]}")
                continue
            build, run, weights = r["build_peak_mb"], r["run_peak_mb"], r["weights_mb"]
            print(
                f"{weights:>6.0f}MB {mode:<8}{r['import_s']:>9.1f}{r['compile_s']:>10.1f}"
                f"{build:>7.0f} {build / weights:>5.2f}x{run:>7.0f} {run / weights:>5.2f}x"
                f"{r['call_ms']:>9.2f}{r['vmfb_mb']:>9.1f}{r['irpa_mb']:>9.1f}"
                f"{r['max_abs_error']:>9.1e}",
                flush=True,
            )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"machine": describe_machine(), "rows": rows}
        write_file(args.json, json.dumps(payload, indent=2).encode())
    if args.chart:
        chart(rows, args.chart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
