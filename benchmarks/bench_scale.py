"""Import + compile time and peak memory as weights grow: inline constants against weights that
never enter the IR (an IREE parameter archive, .irpa), in the same run.

Models are stacks of square linear layers from ~8 MB to ~2 GB of f32 weights.  Each
configuration runs in a fresh process (so peak RSS is its own): import (torch.export + torch-mlir
+ flatten), compile (llvm-cpu), one call checked against eager.  Printed: seconds per stage,
peak RSS of the largest process (the Python driver or iree-compile) and its ratio to the weight
bytes, .vmfb and .irpa sizes.  Goal: with an archive, compile time and memory stay roughly flat
and peak memory under 1.5x the weights.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 8M,128M,512M,2G]
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

# name -> (width, depth): depth * width^2 * 4 bytes of weights
SIZES = {"8M": (1024, 2), "128M": (2048, 8), "512M": (4096, 8), "2G": (8192, 8)}


def _worker(width: int, depth: int, mode: str, scratch: str) -> dict:
    import torch

    from shlo.api import CompiledModel, compile_module, flatten
    from shlo.frontend import import_model
    from shlo.runtime import LoadedModule

    torch.manual_seed(0)
    layers = [torch.nn.Linear(width, width, bias=False) for _ in range(depth)]
    model = torch.nn.Sequential(*layers).eval()
    x = torch.randn(4, width)
    start = time.perf_counter()
    external = mode == "archive"
    imported = import_model(model, (x,), weights="external" if external else "inline")
    imported.module = flatten(imported.module)
    imported_at = time.perf_counter()
    archive = Path(scratch) / "weights.irpa" if external else None
    compiled = compile_module(
        imported.module, "llvm-cpu", parameters=archive, weights=imported.weights
    )
    compiled_at = time.perf_counter()
    run = CompiledModel(imported, compiled, LoadedModule(compiled.vmfb, "local-task", archive))
    with torch.no_grad():
        error = float((run(x) - model(x)).abs().max())
    return {
        "import_s": imported_at - start,
        "compile_s": compiled_at - imported_at,
        "vmfb_mb": len(compiled.vmfb) / 2**20,
        "irpa_mb": archive.stat().st_size / 2**20 if archive else 0.0,
        "max_abs_error": error,
    }


def _measure(size: str, mode: str) -> dict:
    """One configuration in a child process; its peak RSS read from this process's children."""
    width, depth = SIZES[size]
    with tempfile.TemporaryDirectory(prefix="shlo-scale-") as scratch:
        command = [sys.executable, __file__, "--worker", f"{width},{depth},{mode},{scratch}"]
        done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return {"failed": done.stderr.strip().splitlines()[-1] if done.stderr else "died"}
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    result["weights_mb"] = depth * width * width * 4 / 2**20
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8M,128M,512M,2G")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        width, depth, mode, scratch = args.worker.split(",")
        print(json.dumps(_worker(int(width), int(depth), mode, scratch)))
        return 0
    if args.one:  # a fresh parent per configuration: RUSAGE_CHILDREN keeps the maximum
        print(json.dumps(_measure(*args.one.split(","))))
        return 0
    print(
        f"{'weights':>8} {'mode':<8}{'import s':>9}{'compile s':>10}{'peak MB':>9}"
        f"{'peak/weights':>13}{'vmfb MB':>9}{'irpa MB':>9}{'max err':>9}"
    )
    for size in args.sizes.split(","):
        for mode in ("inline", "archive"):
            command = [sys.executable, __file__, "--one", f"{size},{mode}"]
            done = subprocess.run(command, capture_output=True, text=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            if "failed" in r:
                print(f"{size:>8} {mode:<8}failed: {r['failed'][:100]}")
                continue
            print(
                f"{r['weights_mb']:>6.0f}MB {mode:<8}{r['import_s']:>9.1f}{r['compile_s']:>10.1f}"
                f"{r['peak_mb']:>9.0f}{r['peak_mb'] / r['weights_mb']:>12.2f}x"
                f"{r['vmfb_mb']:>9.1f}{r['irpa_mb']:>9.1f}{r['max_abs_error']:>9.1e}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
