"""What `shlo run` and `shlo bench` share: the module on a device, its inputs, and a forked
child that a crash of IREE's runtime cannot take the command down with."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

from shlo.backend.targets import DEVICES, target_for_device
from shlo.runtime.isolated import run_isolated
from shlo.runtime.loaded import LoadedModule, TrustedVmfb, refuse_mlir
from shlo.runtime.untrusted import read_bytes
from shlo.runtime.value_syntax import parse_values
from shlo.tools.commands import PROG
from shlo.tools.reporting import run_reporting

Command = Callable[[argparse.Namespace], int]


def add_device_arguments(parser: argparse.ArgumentParser) -> None:
    """The module, the device, the function and its inputs, and `--json`."""
    parser.add_argument("module", help="the .vmfb, or a bundle directory")
    parser.add_argument("--device", default="local-task", help=", ".join(DEVICES))
    parser.add_argument("--function", default="main")
    parser.add_argument("--parameters", help="the .irpa of a module compiled with --parameters")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument(
        "--json", metavar="FILE", help="also write the results as JSON ('-': stdout)"
    )


def loaded(args: argparse.Namespace) -> tuple[LoadedModule, list[np.ndarray]]:
    """The .vmfb on the device; a bundle directory is compiled for the device first.  In the
    command's own child (`isolated`) a crash ends nothing else: the module is loaded as it is,
    without a trial child of its own."""
    if Path(args.module).is_dir():
        # PyTorch is imported only for a bundle: a .vmfb runs without it, and starts faster
        from shlo.torch.bundle import Bundle

        target = target_for_device(args.device)
        module = Bundle(args.module, target=target.value, device=args.device).loaded
    else:
        vmfb = args.module
        if args.isolate:
            vmfb = TrustedVmfb(read_bytes(args.module))
            refuse_mlir(vmfb, args.module)
        module = LoadedModule(vmfb, args.device, args.parameters)
    return module, parse_values(args.input)


def isolated(body: Command) -> Command:
    """`body` run in a forked child when shlo runs as a command: IREE can die on a damaged
    `.vmfb` (`shlo.runtime.isolated`).  Called from Python (`main(argv)`), in this process."""

    def command(args: argparse.Namespace) -> int:
        if not args.isolate:
            return body(args)
        return run_isolated(lambda: run_reporting(PROG, lambda: body(args)), PROG, args.module)

    return command
