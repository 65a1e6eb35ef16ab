"""`shlo import`: a PyTorch model or a JAX function -> StableHLO (flattened), or a bundle.

A PyTorch factory is the default.  A JAX function needs `--frontend jax`; a file of
`jax.export.Exported.serialize()` bytes (a path to a file that is not Python) is JAX's without
it.  No other guess is made: a factory that fails in a module that loaded JAX says to add
`--frontend jax`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from shlo.errors import UsageError
from shlo.ir.module import IRModule, PrintOptions
from shlo.ir.output import AtomicOutput
from shlo.jax.importer import import_jax
from shlo.jax.profile import jax_flatten
from shlo.pipeline.run import flatten
from shlo.runtime.value_syntax import parse_values
from shlo.tools.commands import PROG
from shlo.tools.progress import Steps

FRONTENDS = ("torch", "jax")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "factory",
        help="pkg.module:NAME or path/to/file.py:NAME: a model, or a factory called with no "
        "arguments (a model class, or a function returning a model or (model, inputs)); with "
        "--frontend jax a function, or a serialized jax.export.Exported file",
    )
    parser.add_argument("--input", action="append", default=[], help="example input (repeatable)")
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument(
        "--frontend", choices=FRONTENDS, help="torch (default), or jax for a JAX function"
    )
    parser.add_argument(
        "--bundle", help="write a torch_xla-layout bundle to this directory instead"
    )
    parser.add_argument(
        "--output-type", default="stablehlo", choices=("stablehlo", "torch", "linalg-on-tensors")
    )
    parser.add_argument("--no-flatten", action="store_true", help="keep calls and dead functions")
    parser.add_argument("--emit-bytecode", action="store_true")


def frontend(args: argparse.Namespace) -> str:
    """The frontend named, else JAX's for an exported file, else PyTorch's."""
    if args.frontend:
        return str(args.frontend)
    source = Path(args.factory)
    exported = ":" not in args.factory and source.is_file() and source.suffix != ".py"
    return "jax" if exported else "torch"


def run(args: argparse.Namespace) -> int:
    if frontend(args) == "jax":
        return _run_jax(args)
    # PyTorch's path only: JAX's import would otherwise pay torch's start-up for nothing
    from shlo.frontend.torch_import import import_model
    from shlo.torch.bundle import save_bundle

    with Steps(3, quiet=args.quiet) as steps:
        with steps.step(f"building {args.factory}"):
            model, inputs = _torch_model(args)
        if args.bundle:
            with steps.step("torch.export, torch-mlir import, writing the bundle"):
                meta = save_bundle(model.eval(), inputs, args.bundle)
            print(f"{PROG}: wrote bundle {args.bundle} (StableHLO {meta.stablehlo_version})")
            return 0
        with steps.step("torch.export and torch-mlir import"):
            imported = import_model(model.eval(), inputs, output_type=args.output_type)
        with steps.step("flattening and writing"):
            _write(imported.module if args.no_flatten else flatten(imported.module), args)
    return 0


def _torch_model(args: argparse.Namespace) -> tuple[Any, tuple[Any, ...]]:
    from shlo.tools.factories import model_and_inputs  # imports torch: PyTorch's path only

    try:
        return model_and_inputs(args.factory, args.input)
    except UsageError as error:
        if "jax" in sys.modules:  # the user's module loaded JAX: say how JAX's path is asked for
            raise UsageError(f"{error} (its module imports jax: for a JAX function add "
                             "--frontend jax)") from None  # fmt: skip
        raise


def _run_jax(args: argparse.Namespace) -> int:
    if args.bundle or args.output_type != "stablehlo":
        raise UsageError("--bundle and --output-type are for PyTorch models, not JAX functions")
    inputs = parse_values(args.input)
    with Steps(2, quiet=args.quiet) as steps:
        with steps.step(f"jax.export of {args.factory} (in JAX's process)"):
            imported = import_jax(args.factory, *inputs)
        with steps.step("flattening (the jax profile) and writing"):
            if args.no_flatten:
                _write(imported.module, args)
            else:
                _write(jax_flatten(imported, inputs or None), args)
    return 0


def _write(module: IRModule, args: argparse.Namespace) -> None:
    with AtomicOutput(args.output) as out:
        module.write(out.stream, PrintOptions(bytecode=args.emit_bytecode))
        out.commit()
