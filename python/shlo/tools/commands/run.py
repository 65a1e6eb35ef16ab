"""`shlo run`: a function of a .vmfb (or a bundle) run once on a device, its results printed
as iree-run-module prints them."""

from __future__ import annotations

import argparse

from shlo.runtime.value_syntax import format_value
from shlo.tools.commands.device import add_device_arguments, isolated, loaded
from shlo.tools.commands.results import report_results
from shlo.tools.json_report import human_output, write_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_device_arguments(parser)
    parser.add_argument("--output", action="append", default=[], help="@file.npy per result")
    parser.add_argument("--expected-output", action="append", default=[])


@isolated
def run(args: argparse.Namespace) -> int:
    module, inputs = loaded(args)
    results = module(args.function, *inputs)
    with human_output(args.json):
        failures = report_results(results, args.output, args.expected_output)
    if args.json:
        values = [format_value(result) for result in results]
        write_json(args.json, {"function": args.function, "device": args.device,
                               "results": values, "failures": failures})  # fmt: skip
    return 1 if failures else 0
