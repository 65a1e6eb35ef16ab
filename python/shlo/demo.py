"""The demo `tools/demo` runs: flatten a built-in StableHLO program with shlo-opt.

The program has the shape an exporter leaves behind (a public entry point calling through nested
private functions, plus a function nobody calls); flattening with inline, symbol-dce and
canonicalize leaves the single function most consumers want.  Files land in an output folder.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from shlo.opt_main import main as shlo_opt

PROGRAM = (resources.files("shlo") / "data" / "mlp_nested.mlir").read_text()

FLATTEN = ["--inline", "--symbol-dce", "--canonicalize", "--shlo-op-stats"]


def _section(title: str) -> None:
    print(f"\n=== {title} ===", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shlo-demo", description=__doc__)
    parser.add_argument(
        "--output-dir",
        type=Path,
        default=Path("out/demo"),
        help="where the input and flattened modules are written",
    )
    args = parser.parse_args(argv)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    before, after = args.output_dir / "nested.mlir", args.output_dir / "flat.mlir"
    before.write_text(PROGRAM)
    _section(f"before: {before}")
    print(PROGRAM, end="")
    command = [str(before), *FLATTEN, "--dump-pass-pipeline", "-o", str(after)]
    _section("shlo-opt " + shlex.join(command))
    status = shlo_opt(command)
    sys.stderr.flush()
    if status != 0:
        return status
    _section(f"after: {after}")
    print(after.read_text(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
