"""A write that fails on a full or failing device (`/dev/full`) is one line naming where the
output was going, exit 1, for a file given with `-o` and for standard output: an OSError from a
write carries no file name, so it would otherwise read as a bare "No space left on device"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
MODULE = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


_TOOLS = [
    ("shlo-opt", []),
    ("shlo-translate", ["--serialize", "--target=current"]),
    ("shlo-translate", ["--interpret", "--args=[dense<1.0> : tensor<4xf32>]"]),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "through"),
    [
        *((tool, arguments, through) for tool, arguments in _TOOLS for through in ("-o", "-")),
        ("shlo", ["compile"], "-o"),  # its .vmfb goes to a file only
    ],
)
def test_a_full_device_is_named(
    tool: str, arguments: list[str], through: str, tmp_path: Path
) -> None:
    source = tmp_path / "m.mlir"
    source.write_text(MODULE)
    command = [str(BIN / tool), *arguments, str(source)]
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*command, "-o", "/dev/full"] if through == "-o" else command,
            stdout=None if through == "-o" else full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    where = "/dev/full" if through == "-o" else "to standard output"
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == f"{tool}: cannot write {where}: No space left on device"
    assert "Traceback" not in done.stderr
