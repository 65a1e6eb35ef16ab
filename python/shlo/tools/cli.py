"""`shlo`: import a PyTorch model, compile it with IREE, run and time it, or run the demo.

    shlo import pkg.module:factory --input 1x3x224x224xf32 -o model.mlir   (or --bundle DIR)
    shlo compile model.mlir --target llvm-cpu -o model.vmfb                (or a bundle DIR)
    shlo run model.vmfb --device local-task --input=2x3xf32=1,2,3,4,5,6 --output=@out.npy
    shlo bench model.vmfb --input=@x.npy --runs 50
    shlo saved-model DIR -o saved_model/              (a bundle, or a factory: TensorFlow Serving)
    shlo demo

Values use iree-run-module's syntax (`shlo.runtime.value_syntax`): `2x2xf32=[1 2][3 4]`,
`SHAPExTYPE` (zeros), `@file.npy`, `+@file.npy` (its next array); results print in it too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shlo.backend.targets import DEVICES
from shlo.errors import UsageError
from shlo.tools.factories import load_factory

if TYPE_CHECKING:  # each command imports what it needs, so `shlo --help` starts fast
    import numpy as np

    from shlo.runtime.loaded import LoadedModule

PROG = "shlo"


def cmd_import(args: argparse.Namespace) -> int:
    from shlo.frontend.torch_import import import_model
    from shlo.ir.module import PrintOptions
    from shlo.ir.output import AtomicOutput
    from shlo.pipeline.run import flatten
    from shlo.tools.progress import Steps

    with Steps(3, quiet=args.quiet) as steps:
        with steps.step(f"building {args.factory}"):
            model, inputs = _model_and_inputs(args.factory, args.input)
        if args.bundle:
            from shlo.torch.bundle import save_bundle

            with steps.step("torch.export, torch-mlir import, writing the bundle"):
                meta = save_bundle(model.eval(), inputs, args.bundle)
            print(f"{PROG}: wrote bundle {args.bundle} (StableHLO {meta.stablehlo_version})")
            return 0
        with steps.step("torch.export and torch-mlir import"):
            imported = import_model(model.eval(), inputs, output_type=args.output_type)
        with steps.step("flattening and writing"):
            module = imported.module if args.no_flatten else flatten(imported.module)
            with AtomicOutput(args.output) as out:
                module.write(out.stream, PrintOptions(bytecode=args.emit_bytecode))
                out.commit()
    return 0


def _model_and_inputs(factory: str, texts: list[str]) -> tuple[Any, tuple]:
    """The factory's model and its inputs: those given as `--input` values, else the
    factory's example inputs."""
    import torch

    from shlo.runtime.value_syntax import parse_values

    model, example = load_factory(factory)
    inputs = tuple(map(torch.from_numpy, parse_values(texts))) if texts else example
    if inputs is None:
        raise UsageError("the factory returned no example inputs: give --input SHAPExTYPE")
    return model, tuple(inputs)


def _read_module(path: str) -> Any:
    """An MLIR file (text or bytecode) as an IRModule; malformed IR is reported as mlir-opt
    reports it."""
    from shlo.ir.module import parse_or_raise
    from shlo.ir.source import read_source
    from shlo.ir.stablehlo import WORLD
    from shlo.ir.worlds import ContextPolicy

    source = read_source(path)
    if source.is_bytecode:  # MLIR's reader aborts on some damaged files: try it in a child
        from shlo.ir.bytecode_guard import check_bytecode

        check_bytecode(source.data, source.name)
    return parse_or_raise(WORLD, WORLD.make_context(ContextPolicy()), source)


def cmd_compile(args: argparse.Namespace) -> int:
    from shlo.backend.compile import compile_module
    from shlo.ir.output import write_file
    from shlo.tools.progress import Steps

    with Steps(2, quiet=args.quiet) as steps:
        with steps.step(f"reading {args.input}"):
            if Path(args.input).is_dir():
                from shlo.torch.bundle import load_module

                module, _ = load_module(args.input)
            else:
                module = _read_module(args.input)
        with steps.step(f"compiling for {args.target} (iree-compile)"):
            compiled = compile_module(
                module,
                args.target,
                cuda=args.cuda_arch,
                extra_flags=tuple(args.iree_flag),
                parameters=args.parameters,
                keep_temps=args.keep_temps,
            )
    write_file(args.output, compiled.vmfb)
    print(f"{PROG}: compiled with: {compiled.command_line()}", file=sys.stderr)
    return 0


def _loaded(args: argparse.Namespace) -> tuple[LoadedModule, list[np.ndarray]]:
    """The .vmfb on the device; a bundle directory is compiled for the device first.  In the
    command's own child (`_isolated`) a crash ends nothing else: the module is loaded as it is,
    without a trial child of its own."""
    from shlo.runtime.loaded import LoadedModule, TrustedVmfb
    from shlo.runtime.untrusted import read_bytes
    from shlo.runtime.value_syntax import parse_values

    if Path(args.module).is_dir():
        from shlo.backend.targets import target_for_device
        from shlo.torch.bundle import Bundle

        target = target_for_device(args.device)
        loaded = Bundle(args.module, target=target.value, device=args.device).loaded
    else:
        vmfb = TrustedVmfb(read_bytes(args.module)) if args.isolate else args.module
        loaded = LoadedModule(vmfb, args.device, args.parameters)
    return loaded, parse_values(args.input)


def _isolated(body: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """`body` run in a forked child when shlo runs as a command: IREE can die on a damaged
    `.vmfb` (`shlo.runtime.isolated`).  Called from Python (`main(argv)`), in this process."""

    def command(args: argparse.Namespace) -> int:
        if not args.isolate:
            return body(args)
        from shlo.runtime.isolated import run_isolated
        from shlo.tools.reporting import run_reporting

        return run_isolated(lambda: run_reporting(PROG, lambda: body(args)), PROG, args.module)

    return command


def cmd_run(args: argparse.Namespace) -> int:
    from shlo.runtime.value_syntax import format_value
    from shlo.tools.json_report import human_output

    loaded, inputs = _loaded(args)
    results = loaded(args.function, *inputs)
    with human_output(args.json):
        failures = _report_results(results, args.output, args.expected_output)
    if args.json:
        from shlo.tools.json_report import write_json

        values = [format_value(result) for result in results]
        write_json(args.json, {"function": args.function, "device": args.device,
                               "results": values, "failures": failures})  # fmt: skip
    return 1 if failures else 0


def _report_results(
    results: list[np.ndarray], outputs: list[str], expected: list[str]
) -> list[str]:
    """Print `results` as iree-run-module does, save them to `outputs`, and say which differ
    from `expected` (on stderr, and returned)."""
    from shlo.runtime.value_syntax import format_value, save_value

    for index, result in enumerate(results):
        print(f"result[{index}]: hal.buffer_view")  # as iree-run-module prints it
        print(format_value(result) if result.size <= _PRINTED_ELEMENTS else _too_many(result))
    for target, result in zip(outputs, results, strict=False):
        save_value(target, result)
    failures = _compare_expected(expected, results)
    for failure in failures:
        print(f"{PROG}: {failure}", file=sys.stderr)
    return failures


_PRINTED_ELEMENTS = 1024  # iree-run-module's --print_max_element_count


def _too_many(result: np.ndarray) -> str:
    from shlo.runtime.value_syntax import type_spec

    return f"{type_spec(result)}=... ({result.size} elements: --output=@FILE.npy keeps them)"


def _compare_expected(expected: list[str], results: list[np.ndarray]) -> list[str]:
    import numpy as np

    from shlo.runtime.value_syntax import parse_values

    failures = []
    for index, (want, result) in enumerate(zip(parse_values(expected), results, strict=False)):
        if want.shape != result.shape or not np.allclose(result, want, rtol=1e-4, atol=1e-4):
            error = (
                np.abs(result.astype(np.float64) - want).max()
                if want.shape == result.shape
                else "shape"
            )
            failures.append(
                f"result[{index}] differs from the expected output (max abs error {error})"
            )
    return failures


def cmd_bench(args: argparse.Namespace) -> int:
    import statistics

    from shlo.runtime.timing import time_calls
    from shlo.support.machine import describe_machine, machine_line
    from shlo.tools.json_report import human_output

    if args.runs < 1:
        raise UsageError(f"--runs {args.runs}: expected a number of runs of at least 1")
    loaded, inputs = _loaded(args)
    times = time_calls(lambda: loaded(args.function, *inputs), args.runs)
    with human_output(args.json):
        print(
            f"{args.function} on {args.device}, {args.runs} runs: median "
            f"{statistics.median(times):.3f} ms, min {min(times):.3f} ms, "
            f"max {max(times):.3f} ms ({machine_line()})"
        )
    if args.json:
        from shlo.tools.json_report import write_json

        write_json(args.json, {
            "function": args.function, "device": args.device, "machine": describe_machine(),
            "runs": args.runs, "median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "times_ms": times,
        })  # fmt: skip
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Interpreter vs IREE on each device (vs eager too for a PyTorch factory)."""
    from shlo.compare import compare_devices, format_reports
    from shlo.runtime.value_syntax import parse_values
    from shlo.tools.progress import Steps

    eager, eager_outputs = None, None
    with Steps(3, quiet=args.quiet) as steps:
        with steps.step(f"reading {args.source}"):
            if ":" in args.source and not Path(args.source).exists():
                module, inputs, eager_outputs = _import_for_compare(args)
            else:
                module, inputs = _read_module(args.source), parse_values(args.input)
            candidate = _read_module(args.candidate) if args.candidate else None
        with steps.step("the interpreter and IREE on each device"):
            devices = args.device or None
            reports = compare_devices(module, inputs, candidate=candidate, devices=devices)
        with steps.step("the interpreter against eager"):
            if eager_outputs is not None:
                from shlo.interpreter.evaluate import interpret_module
                from shlo.runtime.numerics import check_one

                reference = interpret_module(module, inputs)
                eager = [
                    check_one(f"[{i}]", want, got)
                    for i, (got, want) in enumerate(zip(eager_outputs, reference, strict=True))
                ]
    from shlo.tools.json_report import human_output

    with human_output(args.json):
        print(format_reports(reports, eager))
    ok = all(r.ok for r in reports) and all(c.ok for c in eager or [])
    if args.json:
        from dataclasses import asdict

        from shlo.tools.json_report import write_json

        write_json(args.json, {
            "ok": ok, "devices": [asdict(report) for report in reports],
            "eager": None if eager is None else [asdict(check) for check in eager],
        })  # fmt: skip
    return 0 if ok else 1


def _import_for_compare(args: argparse.Namespace) -> tuple:
    import torch
    from torch.utils import _pytree as pytree

    from shlo.frontend.torch_import import import_model
    from shlo.pipeline.run import flatten

    model, inputs = _model_and_inputs(args.source, args.input)
    with torch.no_grad():
        eager = [leaf.numpy() for leaf in pytree.tree_leaves(model.eval()(*inputs))]
    module = flatten(import_model(model, inputs).module)
    return module, [x.numpy() for x in inputs], eager


def cmd_saved_model(args: argparse.Namespace) -> int:
    """A TensorFlow SavedModel from a bundle (run on `--input` values when given) or from a
    factory's model (checked against eager)."""
    from shlo.runtime.value_syntax import parse_values
    from shlo.serving.saved_model import save_saved_model, save_torch_module_as_tf_saved_model
    from shlo.tools.progress import Steps

    failures: list[str] = []
    with Steps(2, quiet=args.quiet) as steps:
        if Path(args.source).is_dir():
            with steps.step(f"writing {args.output} (TensorFlow, in a child process)"):
                inputs = parse_values(args.input) if args.input else None
                saved, results = save_saved_model(
                    args.source, args.output, name=args.name, platform=args.platform,
                    inputs=inputs,
                )  # fmt: skip
            if results is not None:
                failures = _report_results(results, args.output_value, args.expected_output)
        else:
            with steps.step(f"building {args.source}"):
                model, example = _model_and_inputs(args.source, args.input)
            with steps.step(f"writing {args.output}, then running it in TensorFlow"):
                saved = save_torch_module_as_tf_saved_model(
                    model.eval(), example, args.output, platform=args.platform
                )
            print(f"{PROG}: TensorFlow's results match PyTorch eager")
    print(
        f"{PROG}: wrote SavedModel {saved.path} (StableHLO {saved.stablehlo_version} in "
        f"XlaCallModule; signature serving_default, {len(saved.inputs)} inputs args_N, "
        f"{len(saved.outputs)} outputs output_N)"
    )
    return 1 if failures else 0


def cmd_demo(args: argparse.Namespace) -> int:
    from shlo.tools.demo import run_demo

    return run_demo(args.output_dir)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress display on a terminal"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    imp = commands.add_parser("import", help="PyTorch model -> StableHLO (flattened)")
    imp.add_argument(
        "factory",
        help="pkg.module:factory or path/to/file.py:factory; returns a model or (model, inputs)",
    )
    imp.add_argument("--input", action="append", default=[], help="example input (repeatable)")
    imp.add_argument("-o", "--output", default="-")
    imp.add_argument("--bundle", help="write a torch_xla-layout bundle to this directory instead")
    imp.add_argument(
        "--output-type", default="stablehlo", choices=("stablehlo", "torch", "linalg-on-tensors")
    )
    imp.add_argument("--no-flatten", action="store_true", help="keep calls and dead functions")
    imp.add_argument("--emit-bytecode", action="store_true")
    imp.set_defaults(run=cmd_import)
    comp = commands.add_parser("compile", help="StableHLO -> .vmfb with iree-compile")
    comp.add_argument("input", help="StableHLO (text or bytecode) or a bundle directory")
    comp.add_argument("--target", default="llvm-cpu", help="llvm-cpu, vulkan, cuda or vmvx")
    comp.add_argument("--cuda-arch", help="sm_80 (default), sm_89, a100, ...")
    comp.add_argument("--iree-flag", action="append", default=[], help="extra iree-compile flag")
    comp.add_argument("-o", "--output", required=True)
    comp.add_argument("--parameters", help="write the weights to this .irpa, not the .vmfb")
    comp.add_argument(
        "--keep-temps",
        metavar="DIR",
        help="compile in DIR and keep iree-compile's exact input there (the printed command "
        "reruns it)",
    )
    comp.set_defaults(run=cmd_compile)
    for name, handler, text in (
        ("run", _isolated(cmd_run), "run a function once and print results"),
        ("bench", _isolated(cmd_bench), "time a function over many runs"),
    ):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("module", help="the .vmfb, or a bundle directory")
        sub.add_argument("--device", default="local-task", help=", ".join(DEVICES))
        sub.add_argument("--function", default="main")
        sub.add_argument("--parameters", help="the .irpa of a module compiled with --parameters")
        sub.add_argument("--input", action="append", default=[])
        sub.add_argument(
            "--json", metavar="FILE", help="also write the results as JSON ('-': stdout)"
        )
        sub.set_defaults(run=handler)
    run = commands.choices["run"]
    run.add_argument("--output", action="append", default=[], help="@file.npy per result")
    run.add_argument("--expected-output", action="append", default=[])
    commands.choices["bench"].add_argument("--runs", type=int, default=20)
    compare = commands.add_parser(
        "compare", help="interpreter vs IREE on each device (and eager), first diverging op"
    )
    compare.add_argument(
        "source", help="an MLIR file with @main, or a factory as `shlo import` takes"
    )
    compare.add_argument("--input", action="append", default=[])
    compare.add_argument("--candidate", help="compile this MLIR file instead of the source")
    compare.add_argument("--json", metavar="FILE", help="also write the reports as JSON")
    compare.add_argument(
        "--device",
        action="append",
        default=[],
        help=f"{', '.join(DEVICES)} (default: each target's first device here)",
    )
    compare.set_defaults(run=cmd_compare)
    saved = commands.add_parser(
        "saved-model", help="a bundle or a model -> TensorFlow SavedModel (TensorFlow Serving)"
    )
    saved.add_argument("source", help="a bundle directory, or a factory as `shlo import` takes")
    saved.add_argument("-o", "--output", required=True, help="the SavedModel folder to write")
    saved.add_argument("--input", action="append", default=[], help="input value (repeatable)")
    saved.add_argument("--name", default="forward", help="the bundle's function")
    saved.add_argument("--platform", default="CPU", help="CPU, CUDA, ROCM or TPU")
    saved.add_argument("--output-value", action="append", default=[], help="@file.npy per result")
    saved.add_argument("--expected-output", action="append", default=[])
    saved.set_defaults(run=cmd_saved_model)
    demo = commands.add_parser("demo", help="import, flatten, compile and run built-in models")
    demo.add_argument("--output-dir", type=Path, default=Path("out/demo"))
    demo.set_defaults(run=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from shlo.tools.reporting import run_reporting

    args = build_parser().parse_args(argv)
    args.isolate = argv is None  # a command of its own: forking is safe (no threads yet)
    return run_reporting(PROG, lambda: args.run(args))


if __name__ == "__main__":
    sys.exit(main())
