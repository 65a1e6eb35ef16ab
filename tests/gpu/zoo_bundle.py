"""The model zoo on a GPU machine that has no compiler: compile here, run there.

    python tests/gpu/zoo_bundle.py make .gpu-bundle [--cuda-arch sm_80]   # here (full shlo)
    python3 tests/gpu/zoo_bundle.py run .gpu-bundle --device cuda         # on the GPU machine

`make` imports, flattens and compiles every zoo model for CUDA and stores, per model, the
`.vmfb`, its inputs and PyTorch eager's outputs (`.npz`).  `run` needs only numpy, torch and the
iree-base-runtime wheel: it runs each module on the device and compares with eager's outputs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "python"), str(HERE.parent.parent / "python")]


def _numpy(value: object) -> np.ndarray:
    import torch

    tensor = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
    return tensor.detach().cpu().numpy()


def make(folder: Path, cuda_arch: str) -> int:
    import torch
    from torch.utils import _pytree as pytree

    from shlo.api import compile_module, flatten
    from shlo.frontend.torch_import import import_model
    from zoo import ZOO

    folder.mkdir(parents=True, exist_ok=True)
    for example in ZOO:
        model, inputs = example.instantiate()
        if any(getattr(x, "dtype", None) == torch.bfloat16 for x in inputs):
            print(f"{example.name}: skipped (bfloat16 does not fit .npz)")
            continue
        with torch.no_grad():
            expected = pytree.tree_leaves(model(*inputs))
        module = flatten(import_model(model, inputs).module)
        try:
            compiled = compile_module(module, "cuda", cuda=cuda_arch)
        except Exception as error:  # reported and skipped: the bundle holds what compiled
            print(f"{example.name}: not compiled: {str(error).splitlines()[0]}")
            continue
        (folder / f"{example.name}.vmfb").write_bytes(compiled.vmfb)
        np.savez(folder / f"{example.name}.inputs.npz", *[_numpy(x) for x in inputs])
        np.savez(folder / f"{example.name}.expected.npz", *[_numpy(y) for y in expected])
        print(f"{example.name}: {compiled.command_line()}")
    return 0


def run(folder: Path, device: str) -> int:
    import torch

    from shlo.runtime.loaded import LoadedModule
    from shlo.runtime.numerics import compare_outputs

    failures = 0
    for vmfb in sorted(folder.glob("*.vmfb")):
        name = vmfb.name.removesuffix(".vmfb")
        inputs = list(np.load(folder / f"{name}.inputs.npz").values())
        expected = [torch.from_numpy(a) for a in np.load(folder / f"{name}.expected.npz").values()]
        loaded = LoadedModule(vmfb, device)
        loaded("main", *inputs)
        start = time.perf_counter()
        outputs = loaded("main", *inputs)
        elapsed = (time.perf_counter() - start) * 1e3
        checks = compare_outputs([torch.from_numpy(o) for o in outputs], expected)
        ok = all(check.ok for check in checks)
        failures += not ok
        print(
            f"{name:<12} {device:<6} max abs err {max(c.max_abs for c in checks):.2e} "
            f"{'pass' if ok else 'FAIL'} {elapsed:8.3f} ms"
        )
    print(f"{len(list(folder.glob('*.vmfb'))) - failures} passed, {failures} failed")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    made = sub.add_parser("make")
    made.add_argument("folder", type=Path)
    made.add_argument("--cuda-arch", default="sm_80")
    ran = sub.add_parser("run")
    ran.add_argument("folder", type=Path)
    ran.add_argument("--device", default="cuda")
    args = parser.parse_args()
    return (
        make(args.folder, args.cuda_arch) if args.mode == "make" else run(args.folder, args.device)
    )


if __name__ == "__main__":
    sys.exit(main())
