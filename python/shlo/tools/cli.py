"""`shlo`: import PyTorch or JAX, compile it with IREE, run and time it, or run the demo.

    shlo import pkg.module:factory --input 1x3x224x224xf32 -o model.mlir   (or --bundle DIR)
    shlo import file.py:fn --frontend jax --input 4x8xf32 -o model.mlir    (or f.exported)
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
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from shlo.tools.commands import PROG
from shlo.tools.reporting import run_reporting

# command -> (its module in shlo.tools.commands, its line in `shlo --help`)
COMMANDS = {
    "import": ("import_", "PyTorch model or JAX function -> StableHLO (flattened)"),
    "compile": ("compile", "StableHLO -> .vmfb with iree-compile"),
    "run": ("run", "run a function once and print results"),
    "bench": ("bench", "time a function over many runs"),
    "compare": ("compare", "interpreter vs IREE on each device (and eager), first diverging op"),
    "saved-model": (
        "saved_model",
        "a bundle or a model -> TensorFlow SavedModel (TensorFlow Serving)",
    ),
    "demo": ("demo", "import, flatten, compile and run built-in models"),
}


class CommandParser(argparse.ArgumentParser):
    """A subcommand's parser that imports the command's module, and takes its arguments, only
    when the command is chosen: `shlo --help` imports none of them."""

    def __init__(self, *args: Any, module: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.module = module
        self.loaded = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if not self.loaded:
            command = importlib.import_module(f"shlo.tools.commands.{self.module}")
            command.add_arguments(self)
            self.set_defaults(run=command.run)
            self.loaded = True
        return super().parse_known_args(args, namespace)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress display on a terminal"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    for name, (module, text) in COMMANDS.items():
        commands.add_parser(name, help=text, module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.isolate = argv is None  # a command of its own: forking is safe (no threads yet)
    return run_reporting(PROG, lambda: args.run(args))


if __name__ == "__main__":
    sys.exit(main())
