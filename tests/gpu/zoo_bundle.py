"""The model zoo on a GPU machine that has no compiler: compile here, run there.

    python tests/gpu/zoo_bundle.py make .gpu-bundle [--cuda-arch sm_80] [--bench bert,resnet50]
                                   [--jax]
    python3 tests/gpu/zoo_bundle.py run .gpu-bundle --device cuda         # on the GPU machine

`make` imports, flattens and compiles every zoo model for CUDA and stores, per model, the
`.vmfb`, its inputs and PyTorch eager's outputs (`.npz`).  `run` needs only numpy, torch and the
iree-base-runtime wheel: it runs each module on the device and compares with eager's outputs.

`--bench` adds models of `benchmarks/bench_models.py` compiled with their weights kept out of
the `.vmfb` (only their names travel): `run` builds the same model there, writes its weights to
a parameter archive, checks the module against eager on the CPU, and times it host to host
against PyTorch eager and `torch.compile` on the same GPU, interleaved.

`--jax` adds the JAX programs of `examples/jax/` (`jax_<name>`), each taken through
`shlo import --frontend jax` and `shlo compile --target cuda` as docs/jax.md shows, with the
inputs and JAX's own outputs that the program saves when run as a script.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "python"), str(HERE.parent.parent / "python")]
sys.path.append(str(HERE.parent.parent / "benchmarks"))


def _numpy(value: object) -> np.ndarray:

    tensor = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
    return tensor.detach().cpu().numpy()


def make_jax(folder: Path, cuda_arch: str) -> None:
    """Each JAX example compiled for CUDA through the `shlo` command, beside its inputs and
    JAX's outputs."""
    shlo = str(Path(sys.executable).parent / "shlo")
    for program in sorted((HERE.parent.parent / "examples" / "jax").glob("*.py")):
        name = program.stem
        with tempfile.TemporaryDirectory() as scratch:
            work = Path(scratch)
            subprocess.run([sys.executable, str(program)], cwd=work, check=True)
            inputs = sorted(p for p in work.glob("*.npy") if p.name != "expected.npy")
            given = [f"--input=@{p}" for p in inputs]
            mlir, vmfb = work / f"{name}.mlir", folder / f"jax_{name}.vmfb"
            command = [shlo, "import", f"{program}:{name}", "--frontend", "jax", *given]
            subprocess.run([*command, "-o", str(mlir)], check=True)
            target = ["--target", "cuda", "--cuda-arch", cuda_arch]
            subprocess.run([shlo, "compile", str(mlir), *target, "-o", str(vmfb)], check=True)
            np.savez(folder / f"jax_{name}.inputs.npz", *[np.load(p) for p in inputs])
            np.savez(folder / f"jax_{name}.expected.npz", np.load(work / "expected.npy"))
        print(f"jax_{name}: compiled for {cuda_arch}")


def make(folder: Path, cuda_arch: str, bench: list[str]) -> int:
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
    for name in bench:
        make_bench(folder, name, cuda_arch)
    return 0


def make_bench(folder: Path, name: str, cuda_arch: str) -> None:
    """`name`'s module with its weights as named parameters, and those names."""
    from bench_models import build

    from shlo.api import compile_module, flatten
    from shlo.frontend.torch_import import import_model

    model, inputs = build(name)
    imported = import_model(model, inputs, weights="external")
    with tempfile.TemporaryDirectory() as scratch:
        compiled = compile_module(
            flatten(imported.module),
            "cuda",
            cuda=cuda_arch,
            parameters=Path(scratch) / "weights.irpa",
            weights=imported.weights,
        )
    (folder / f"{name}.vmfb").write_bytes(compiled.vmfb)
    (folder / f"{name}.weights.json").write_text(json.dumps(list(imported.weights)))
    print(f"{name}: {compiled.command_line()} (weights kept apart)")


def run(folder: Path, device: str, runs: int) -> int:

    from shlo.runtime.loaded import LoadedModule
    from shlo.runtime.numerics import compare_outputs

    failures = 0
    for vmfb in sorted(folder.glob("*.vmfb")):
        name = vmfb.name.removesuffix(".vmfb")
        if (folder / f"{name}.weights.json").is_file():
            failures += not run_bench(folder, name, device, runs)
            continue
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


def run_bench(folder: Path, name: str, device: str, runs: int) -> bool:
    """Check `name` against eager on the CPU, then time it against PyTorch on the GPU."""
    from bench_models import build
    from torch.utils import _pytree as pytree

    from shlo.runtime.archives import write_archive
    from shlo.runtime.loaded import LoadedModule
    from shlo.runtime.numerics import compare_outputs
    from shlo.runtime.timing import interleaved_ms

    model, inputs = build(name)
    state = dict(model.named_parameters()) | dict(model.named_buffers())
    names = json.loads((folder / f"{name}.weights.json").read_text())
    missing = [key for key in names if key not in state]
    if missing:
        print(f"{name}: this machine's model lacks weights {missing[:3]} ...: FAIL")
        return False
    archive = folder / f"{name}.irpa"
    write_archive({key: state[key] for key in names}, archive)
    loaded = LoadedModule(folder / f"{name}.vmfb", device, archive)
    host = [x.numpy() for x in inputs]
    with torch.no_grad():
        expected = pytree.tree_leaves(model(*inputs))
        exact = pytree.tree_leaves(copy.deepcopy(model).double()(*map(_double, inputs)))
    actual = [torch.from_numpy(o) for o in loaded("main", *host)]
    checks = compare_outputs(actual, expected)
    # Beyond eager's tolerance, a leaf still passes when it is as close to the float64 result
    # as eager's own float32 result is (within 2x): deep models drift with summation order.
    drift = [
        _max_error(a, r) / max(_max_error(e, r), 1e-30)
        for a, e, r in zip(actual, expected, exact, strict=True)
    ]
    ok = all(check.ok or ratio <= 2 for check, ratio in zip(checks, drift, strict=True))

    on_gpu = copy.deepcopy(model).cuda()
    compiled = torch.compile(on_gpu)

    def host_to_host(module: torch.nn.Module) -> list[torch.Tensor]:
        with torch.no_grad():
            return [t.cpu() for t in pytree.tree_leaves(module(*[x.cuda() for x in inputs]))]

    host_to_host(compiled)  # compiles
    times = interleaved_ms(
        {
            "shlo": lambda: loaded("main", *host),
            "eager": lambda: host_to_host(on_gpu),
            "compile": lambda: host_to_host(compiled),
        },
        runs,
    )
    ms = {key: statistics.median(values) for key, values in times.items()}
    print(
        f"{name:<12} {device:<6} max abs err {max(c.max_abs for c in checks):.2e} "
        f"(error against float64 {max(drift):.2f}x eager's) "
        f"{'pass' if ok else 'FAIL'} | host-to-host median ms on {torch.cuda.get_device_name()}: "
        f"shlo {ms['shlo']:.3f}, torch eager {ms['eager']:.3f}, torch.compile {ms['compile']:.3f}"
        f" | shlo/eager {ms['shlo'] / ms['eager']:.2f}x, shlo/compile "
        f"{ms['shlo'] / ms['compile']:.2f}x (cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}, "
        f"matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32})"
    )
    return ok


def _double(value: torch.Tensor) -> torch.Tensor:
    return value.double() if value.is_floating_point() else value


def _max_error(value: torch.Tensor, exact: torch.Tensor) -> float:
    return float((value.double() - exact).abs().max())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    made = sub.add_parser("make")
    made.add_argument("folder", type=Path)
    made.add_argument("--cuda-arch", default="sm_80")
    made.add_argument("--bench", default="", help="comma-separated bench_models names")
    made.add_argument("--jax", action="store_true", help="also the JAX programs of examples/jax")
    ran = sub.add_parser("run")
    ran.add_argument("folder", type=Path)
    ran.add_argument("--device", default="cuda")
    ran.add_argument("--runs", type=int, default=30, help="timed calls of each, per bench model")
    args = parser.parse_args()
    if args.mode == "make":
        if args.jax:
            args.folder.mkdir(parents=True, exist_ok=True)
            make_jax(args.folder, args.cuda_arch)
        return make(args.folder, args.cuda_arch, [n for n in args.bench.split(",") if n])
    return run(args.folder, args.device, args.runs)


if __name__ == "__main__":
    sys.exit(main())
