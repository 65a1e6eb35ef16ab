"""Steady-state latency of shlo-compiled models against PyTorch eager and onnxruntime, same run.

Models: the demo models, and BERT-base, GPT-2 small, ViT-B/16 and ResNet-50 built from
`transformers` configs with random weights (batch 1; 128 tokens, a 224x224 image), each
compiled as `compile_torch` does by default (large models' weights in a parameter archive).
For each: compile time (import, flatten, compile and load), peak memory (this process's and
iree-compile's, against the weight bytes), and
median latency single-threaded (IREE `local-sync`, eager and onnxruntime on one thread) and on
all cores (eager and onnxruntime on default threads; shlo on the device `compile_torch` picks
by default: local-task, or local-sync where the thread pool's wake-ups cost more than it saves),
printed with the ratios to eager and to onnxruntime.  Each model runs in a child process so
peak memory is its own, and within it the systems are timed in interleaved rounds (one slow
moment of the machine hits them all).  Eager
is also timed before any IREE device exists, and the faster of its two medians is the one
compared: IREE's live worker threads can take cores from eager's, which would flatter shlo.
Then each model's floor: its dot and convolution FLOPs (shlo-op-stats) at the fastest
single-thread matmul rate measured in the same run, against which shlo's, eager's and 0.8x
eager's times are printed.  The header names the machine (CPU model, ISA extensions, cores);
`--json` writes the rows with it, `--chart` a PNG of the ratios to eager (matplotlib).

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python benchmarks/bench_models.py [--models mlp,bert] [--runs 30] \
        [--json out/bench_models.json] [--chart out/bench_models.png]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from shlo.ir.output import atomic_path, write_file
from shlo.support.machine import describe_machine, machine_line, machine_title

MODELS = ("mlp", "cnn", "encoder", "bert", "gpt2", "vit", "resnet50")


def build(name: str) -> tuple:
    """The model (eval mode) and its example inputs."""
    import torch

    from shlo.tools.demo_models import DEMO_MODELS

    demo = {example.name: example for example in DEMO_MODELS}
    if name in demo:
        return demo[name].instantiate()
    import transformers

    torch.manual_seed(0)
    if name == "bert":
        model = transformers.BertModel(transformers.BertConfig())
        inputs = (torch.randint(0, 30522, (1, 128)),)
    elif name == "gpt2":
        model = transformers.GPT2Model(transformers.GPT2Config())
        inputs = (torch.randint(0, 50257, (1, 128)),)
    elif name == "vit":
        model = transformers.ViTModel(transformers.ViTConfig())
        inputs = (torch.randn(1, 3, 224, 224),)
    else:
        model = transformers.ResNetModel(transformers.ResNetConfig())  # ResNet-50's layers
        inputs = (torch.randn(1, 3, 224, 224),)
    model.config.return_dict = False
    model.config.use_cache = False
    return model.eval(), inputs


def onnx_runners(model: object, inputs: tuple) -> dict[int, Callable[[], object]]:
    """onnxruntime on one thread (1) and on all (0), as calls; none when ONNX export fails."""
    import onnxruntime
    import torch

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "model.onnx"
        try:
            torch.onnx.export(model, inputs, str(path), dynamo=True, opset_version=18)
        except Exception as error:  # the exporter's failures vary; the row says n/a
            print(f"onnx export failed: {str(error).splitlines()[0]}", file=sys.stderr)
            return {}
        runners = {}
        for threads in (1, 0):
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            session = onnxruntime.InferenceSession(str(path), options)
            feeds = {i.name: x.numpy() for i, x in zip(session.get_inputs(), inputs, strict=True)}
            runners[threads] = functools.partial(session.run, None, feeds)
    return runners


def measure(name: str, runs: int) -> dict:
    """One model, in this process: what the parent prints as a table row."""
    import torch

    from shlo.api import HOST_DEVICES, compile_torch, on_faster_host_device
    from shlo.ir.edit import functions
    from shlo.passes.op_stats import function_stats
    from shlo.runtime.numerics import compare_outputs
    from shlo.runtime.timing import interleaved_ms, median_ms

    model, inputs = build(name)
    alone = {}
    with torch.no_grad():
        expected = model(*inputs)
        for threads in (1, os.cpu_count() or 1):  # before any IREE device takes a core
            torch.set_num_threads(threads)
            alone[threads == 1] = median_ms(lambda: model(*inputs), runs)
    resident = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as scratch:
        first = compile_torch(model, inputs, device="local-task", keep_temps=scratch)
        compile_s = time.perf_counter() - start
        compiled_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before ORT's
        compiler_peak = max(
            compiler_peak_mib(command, scratch)
            for command in first.compiled.commands
            if command[0] == "iree-compile"
        )
    main_function = functions(first.imported.module.operation)["main"]
    gflop = function_stats(main_function)["matmul_flops"] / 1e9
    runners = {d: first if d == "local-task" else first.on_device(d) for d in HOST_DEVICES}
    error = max(
        check.max_abs
        for runner in runners.values()
        for check in compare_outputs(runner(*inputs), expected)
    )
    picked = on_faster_host_device(runners["local-task"], inputs, {}).loaded.device_name
    ort = onnx_runners(model, inputs)
    medians = {}
    for threads, shlo_devices in ((1, ("local-sync",)), (os.cpu_count() or 1, HOST_DEVICES)):
        torch.set_num_threads(threads)
        calls = {f"shlo {d}": functools.partial(runners[d], *inputs) for d in shlo_devices}
        calls["eager"] = functools.partial(model, *inputs)
        if ort:
            calls["ort"] = ort[1 if threads == 1 else 0]
        with torch.no_grad():
            times = interleaved_ms(calls, runs)
        medians[threads == 1] = {key: statistics.median(t) for key, t in times.items()}
        # IREE's live worker threads can slow eager's beside them: the faster eager counts
        medians[threads == 1]["eager"] = min(medians[threads == 1]["eager"], alone[threads == 1])
    one, every = medians[True], medians[False]
    return {
        "model": name,
        "gflop": gflop,
        "compile_s": compile_s,
        "before_compile_mib": resident,
        "max_abs_error": error,
        "peak_mib": compiled_peak,
        "compiler_peak_mib": compiler_peak,
        "weights_mib": sum(t.nbytes for t in model.state_dict().values()) / 2**20,
        "archive": first.parameters is not None,
        "shlo_1": one["shlo local-sync"],
        "eager_1": one["eager"],
        "ort_1": one.get("ort", float("nan")),
        "shlo_n": every[f"shlo {picked}"],
        "device_n": picked,
        "task_n": every["shlo local-task"],
        "eager_n": every["eager"],
        "ort_n": every.get("ort", float("nan")),
        "matmul_rate": matmul_rate(runs),
    }


# Runs a command and prints its peak RSS in KiB.  A child of a large process reports that
# process's size as its own peak (Linux keeps the image it replaced at exec in ru_maxrss), so
# the compiler is started again from this small interpreter, whose own size is all it adds.
_PEAK_OF_COMMAND = (
    "import resource, subprocess, sys; "
    "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def compiler_peak_mib(command: tuple[str, ...], folder: str) -> float:
    """An iree-compile's own peak RSS in MiB: `command` (as `Compiled.commands` records it)
    run again in `folder`, where the compile left its input."""
    from shlo.pipeline.native_tools import tool_path

    tool, *arguments = command
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_OF_COMMAND, str(tool_path(tool)), *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout) / 1024


def matmul_rate(runs: int) -> float:
    """The fastest single-thread matmul measured here, in GFLOP/s: the fastest call of linear
    layers of BERT's and of a square shape, compiled by shlo (weights packed at load) and in
    eager.  The floors it gives are as low as this machine has shown a matmul can go."""
    import torch

    from shlo.api import compile_torch
    from shlo.runtime.timing import time_calls

    torch.set_num_threads(1)
    rates = []
    for rows, depth, width in ((128, 768, 3072), (256, 2048, 2048)):
        model = torch.nn.Linear(depth, width, bias=False).eval()
        x = torch.randn(rows, depth)
        compiled = compile_torch(model, (x,), device="local-sync")
        with torch.no_grad():
            for engine in (compiled, model):
                call = functools.partial(engine, x)
                rates.append(2 * rows * depth * width / min(time_calls(call, runs)) / 1e6)
    return max(rates)


def floors(rows: list[dict], rate: float) -> str:
    """Each model's dot/convolution FLOPs at `rate`: no single-thread run can beat that."""
    lines = [
        f"floor: dot and convolution FLOPs at {rate:.1f} GFLOP/s, the fastest single-thread "
        "matmul measured in this run (shlo or eager; 128x768x3072 and 256x2048x2048, measured "
        "after each model, as this machine's speed drifts)",
        f"{'model':<8}{'GFLOP':>8}{'floor ms':>10}{'shlo/floor':>12}{'eager/floor':>13}"
        f"{'0.8x eager/floor':>18}",
    ]
    for r in rows:
        floor = r["gflop"] / rate * 1e3
        lines.append(
            f"{r['model']:<8}{r['gflop']:>8.2f}{floor:>10.2f}{r['shlo_1'] / floor:>11.2f}x"
            f"{r['eager_1'] / floor:>12.2f}x{0.8 * r['eager_1'] / floor:>17.2f}x"
        )
    return "\n".join(lines)


def memory(rows: list[dict]) -> str:
    """Peak memory against the weights' bytes: this process before the compile (PyTorch and
    the model, timed eager included) and after it, and iree-compile's own (`compiler_peak_mib`;
    the largest of its runs), with where the weights went (the .vmfb, or an archive)."""
    lines = [
        f"{'model':<8}{'weights MiB':>12}{'before MiB':>11}{'peak MiB':>9}{'added/weights':>14}"
        f"{'iree-compile MiB':>17}{'/weights':>10}{'weights in':>12}"
    ]
    for r in rows:
        weights, added = r["weights_mib"], r["peak_mib"] - r["before_compile_mib"]
        lines.append(
            f"{r['model']:<8}{weights:>12.0f}{r['before_compile_mib']:>11.0f}{r['peak_mib']:>9.0f}"
            f"{added / weights:>13.1f}x{r['compiler_peak_mib']:>17.0f}"
            f"{r['compiler_peak_mib'] / weights:>9.1f}x{'archive' if r['archive'] else '.vmfb':>12}"
        )
    return "\n".join(lines)


def table(rows: list[dict]) -> str:
    head = (
        f"{'model':<8}{'compile s':>10}{'peak MiB':>9}{'err':>9} | single thread ms: "
        f"{'shlo':>8}{'eager':>8}{'ort':>8}{'/eager':>8}{'/ort':>7} | all cores ms: "
        f"{'shlo':>8}{'eager':>8}{'ort':>8}{'/eager':>8}{'/ort':>7}"
    )
    lines = [head]
    for r in rows:
        cells = [
            f"{r['model']:<8}{r['compile_s']:>10.1f}{r['peak_mib']:>9.0f}"
            f"{r['max_abs_error']:>9.1e} | {'':17}"
        ]
        for suffix in ("1", "n"):
            shlo, eager, ort = r[f"shlo_{suffix}"], r[f"eager_{suffix}"], r[f"ort_{suffix}"]
            cells.append(
                f"{shlo:>8.2f}{eager:>8.2f}{ort:>8.2f}{shlo / eager:>7.2f}x{shlo / ort:>6.2f}x"
            )
        lines.append(cells[0] + cells[1] + f" | {'':13}" + cells[2])
    on_one = [
        f"{r['model']} ({r['task_n']:.2f} ms on local-task)"
        for r in rows
        if r["device_n"] != "local-task"
    ]
    lines.append(
        "all cores: shlo on the device compile_torch picks by default, the faster of local-task "
        "and local-sync on the example inputs"
        + (f"; local-sync for {', '.join(on_one)}" if on_one else "")
    )
    return "\n".join(lines)


def chart(rows: list[dict], path: Path) -> None:
    """Bars of each model's time against eager's (shlo and onnxruntime, one thread and all
    cores), with the 0.9x goal drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [
        ("shlo, 1 thread", "shlo_1", "eager_1"),
        ("onnxruntime, 1 thread", "ort_1", "eager_1"),
        ("shlo, all cores", "shlo_n", "eager_n"),
        ("onnxruntime, all cores", "ort_n", "eager_n"),
    ]
    inches = 2 + 1.6 * len(rows)
    figure, axes = plt.subplots(figsize=(inches, 4.5))
    width = 0.8 / len(series)
    for index, (label, system, eager) in enumerate(series):
        ratios = [row[system] / row[eager] for row in rows]
        offsets = [i + (index - (len(series) - 1) / 2) * width for i in range(len(rows))]
        axes.bar(offsets, ratios, width, label=label)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.axhline(0.9, color="gray", linestyle="--", linewidth=0.8, label="goal: 0.9x eager")
    axes.set_xticks(range(len(rows)), [row["model"] for row in rows])
    axes.set_ylabel("time / eager's time (lower is faster)")
    axes.set_title(machine_title("shlo vs eager and onnxruntime", inches), fontsize=9)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as scratch:
        figure.savefig(scratch, dpi=120, format=path.suffix.lstrip(".") or "png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", type=Path, help="write the machine and the rows here")
    parser.add_argument("--chart", type=Path, help="write a PNG of the ratios here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.runs)))
        return 0
    print(f"machine: {machine_line()}")
    rows = []
    for name in args.models.split(","):
        print(f"{name}: import, compile, time ...", file=sys.stderr, flush=True)
        done = subprocess.run(
            [sys.executable, __file__, "--child", name, "--runs", str(args.runs)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(f"{name}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
            continue
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    rate = max(row["matmul_rate"] for row in rows)
    print(table(rows))
    print(floors(rows, rate))
    print(memory(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"machine": describe_machine(), "runs": args.runs, "matmul_gflops": rate}
        write_file(args.json, json.dumps({**payload, "rows": rows}, indent=2).encode())
    if args.chart:
        chart(rows, args.chart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
