"""`shlo bench`: a function of a .vmfb (or a bundle) timed over many runs."""

from __future__ import annotations

import argparse
import statistics

from shlo.errors import UsageError
from shlo.runtime.timing import time_calls
from shlo.support.machine import describe_machine, machine_line
from shlo.tools.commands.device import add_device_arguments, isolated, loaded
from shlo.tools.json_report import human_output, write_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_device_arguments(parser)
    parser.add_argument("--runs", type=int, default=20)


@isolated
def run(args: argparse.Namespace) -> int:
    if args.runs < 1:
        raise UsageError(f"--runs {args.runs}: expected a number of runs of at least 1")
    module, inputs = loaded(args)
    times = time_calls(lambda: module(args.function, *inputs), args.runs)
    with human_output(args.json):
        print(
            f"{args.function} on {args.device}, {args.runs} runs: median "
            f"{statistics.median(times):.3f} ms, min {min(times):.3f} ms, "
            f"max {max(times):.3f} ms ({machine_line()})"
        )
    if args.json:
        write_json(args.json, {
            "function": args.function, "device": args.device, "machine": describe_machine(),
            "runs": args.runs, "median_ms": statistics.median(times), "min_ms": min(times),
            "max_ms": max(times), "times_ms": times,
        })  # fmt: skip
    return 0
