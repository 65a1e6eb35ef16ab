"""`shlo compare`: a reference (the interpreter, or XLA:CPU with `--reference xla-cpu`) against
IREE on each device (and against eager for a PyTorch factory), naming the first op whose
results diverge."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from torch.utils import _pytree as pytree

from shlo.backend.targets import DEVICES
from shlo.compare import INTERPRETER, Reference, compare_devices, format_reports
from shlo.frontend.torch_import import import_model
from shlo.ir.module import IRModule
from shlo.jax.xla_cpu import run_on_xla_cpu
from shlo.pipeline.run import flatten
from shlo.runtime.numerics import check_one
from shlo.runtime.value_syntax import parse_values
from shlo.tools.commands.mlir_file import read_module
from shlo.tools.factories import model_and_inputs
from shlo.tools.json_report import human_output, write_json
from shlo.tools.progress import Steps

REFERENCES = {"interpreter": INTERPRETER, "xla-cpu": Reference("xla-cpu", run_on_xla_cpu)}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "source", help="an MLIR file with @main, or a factory as `shlo import` takes"
    )
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--candidate", help="compile this MLIR file instead of the source")
    parser.add_argument("--json", metavar="FILE", help="also write the reports as JSON")
    parser.add_argument(
        "--reference",
        choices=tuple(REFERENCES),
        default="interpreter",
        help="what the devices are held to: StableHLO's interpreter (default), or XLA:CPU "
        "(jaxlib's CPU client, in JAX's process; needs the jax extra)",
    )
    parser.add_argument(
        "--device",
        action="append",
        default=[],
        help=f"{', '.join(DEVICES)} (default: each target's first device here)",
    )


def run(args: argparse.Namespace) -> int:
    """The reference vs IREE on each device (vs eager too for a PyTorch factory)."""
    eager, eager_outputs = None, None
    reference = REFERENCES[args.reference]
    with Steps(3, quiet=args.quiet) as steps:
        with steps.step(f"reading {args.source}"):
            if ":" in args.source and not Path(args.source).exists():
                module, inputs, eager_outputs = _import_for_compare(args)
            else:
                module, inputs = read_module(args.source), parse_values(args.input)
            candidate = read_module(args.candidate) if args.candidate else None
        with steps.step(f"the {reference.name} and IREE on each device"):
            reports = compare_devices(module, inputs, candidate=candidate,
                                      devices=args.device or None, reference=reference)  # fmt: skip
        with steps.step(f"the {reference.name} against eager"):
            if eager_outputs is not None:
                expected = reference.run(module, inputs)
                eager = [
                    check_one(f"[{i}]", want, got)
                    for i, (got, want) in enumerate(zip(eager_outputs, expected, strict=True))
                ]
    with human_output(args.json):
        print(format_reports(reports, eager, reference.name))
    ok = all(r.ok for r in reports) and all(c.ok for c in eager or [])
    if args.json:
        write_json(args.json, {
            "ok": ok, "reference": reference.name,
            "devices": [asdict(report) for report in reports],
            "eager": None if eager is None else [asdict(check) for check in eager],
        })  # fmt: skip
    return 0 if ok else 1


def _import_for_compare(
    args: argparse.Namespace,
) -> tuple[IRModule, list[np.ndarray], list[np.ndarray]]:
    """The factory's model imported and flattened, its inputs, and what eager returns."""
    model, inputs = model_and_inputs(args.source, args.input)
    with torch.no_grad():
        eager = [leaf.numpy() for leaf in pytree.tree_leaves(model.eval()(*inputs))]
    module = flatten(import_model(model, inputs).module)
    return module, [x.numpy() for x in inputs], eager
