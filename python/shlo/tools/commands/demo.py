"""`shlo demo`: built-in models imported, flattened, compiled and run on every device here."""

from __future__ import annotations

import argparse
from pathlib import Path

from shlo.tools.demo import run_demo


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output-dir", type=Path, default=Path("out/demo"))


def run(args: argparse.Namespace) -> int:
    return run_demo(args.output_dir)
