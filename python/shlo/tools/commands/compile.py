"""`shlo compile`: StableHLO (a file or a bundle directory) -> .vmfb with iree-compile."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from shlo.backend.compile import compile_module
from shlo.errors import UsageError
from shlo.ir.output import write_file
from shlo.tools.commands import PROG
from shlo.tools.commands.mlir_file import read_module
from shlo.tools.progress import Steps


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="StableHLO (text or bytecode) or a bundle directory")
    parser.add_argument("--target", default="llvm-cpu", help="llvm-cpu, vulkan, cuda or vmvx")
    parser.add_argument("--cuda-arch", help="sm_80 (default), sm_89, a100, ...")
    parser.add_argument("--iree-flag", action="append", default=[], help="extra iree-compile flag")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--parameters", help="write the weights to this .irpa, not the .vmfb")
    parser.add_argument(
        "--keep-temps",
        metavar="DIR",
        help="compile in DIR and keep iree-compile's exact input there (the printed command "
        "reruns it)",
    )


def run(args: argparse.Namespace) -> int:
    for name, path in (("--output", args.output), ("--parameters", args.parameters)):
        if path is not None and _same_file(path, args.input):
            raise UsageError(f"{name} {path} is the input itself; compiling over it would lose it")
    with Steps(2, quiet=args.quiet) as steps:
        with steps.step(f"reading {args.input}"):
            if Path(args.input).is_dir():
                # torch-mlir's importer is loaded only for a bundle: an MLIR file starts faster
                from shlo.torch.bundle import load_module

                module, _ = load_module(args.input)
            else:
                module = read_module(args.input)
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


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # one of them does not exist (yet)
        return False
