"""`shlo saved-model`: a bundle or a PyTorch model -> a TensorFlow SavedModel (TensorFlow
Serving)."""

from __future__ import annotations

import argparse
from pathlib import Path

from shlo.runtime.value_syntax import parse_values
from shlo.serving.saved_model import save_saved_model, save_torch_module_as_tf_saved_model
from shlo.tools.commands import PROG
from shlo.tools.commands.results import report_results
from shlo.tools.factories import model_and_inputs
from shlo.tools.progress import Steps


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a bundle directory, or a factory as `shlo import` takes")
    parser.add_argument("-o", "--output", required=True, help="the SavedModel folder to write")
    parser.add_argument("--input", action="append", default=[], help="input value (repeatable)")
    parser.add_argument("--name", default="forward", help="the bundle's function")
    parser.add_argument("--platform", default="CPU", help="CPU, CUDA, ROCM or TPU")
    parser.add_argument("--output-value", action="append", default=[], help="@file.npy per result")
    parser.add_argument("--expected-output", action="append", default=[])


def run(args: argparse.Namespace) -> int:
    """A TensorFlow SavedModel from a bundle (run on `--input` values when given) or from a
    factory's model (checked against eager)."""
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
                failures = report_results(results, args.output_value, args.expected_output)
        else:
            with steps.step(f"building {args.source}"):
                model, example = model_and_inputs(args.source, args.input)
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
