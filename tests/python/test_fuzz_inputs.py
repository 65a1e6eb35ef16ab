"""Seeded mutants of every input kind shlo reads, through the commands users run.

Each mutant (bytes flipped, cut short, a run of bytes repeated or dropped) of a valid .mlir,
.mlirbc, .vmfb, .irpa, .npy and bundle metadata file goes through its command in a child
process.  Whatever the damage, the command ends with exit 0 or 1 (never a signal, never a
hang), says why without a traceback or "a bug in shlo", and leaves its `-o` file as it was when
it fails.  A failure names the kind and seed: `mutant(kind, seed)` rebuilds that input.
`SHLO_FUZZ_COUNT` sets how many mutants per kind (a quarter of it for bundle metadata, whose
command imports torch: seconds each); the slow test runs many more.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

FIXTURE_BUNDLE = Path(__file__).resolve().parent / "fixtures" / "torch_xla_bundle"
COUNT = int(os.environ.get("SHLO_FUZZ_COUNT", "16"))
SLOW_COUNT = 200
TIMEOUT = 120  # seconds: far beyond any one command here, so only a hang reaches it
SENTINEL = b"the output before the run\n"
ADD = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
WEIGHTS = """func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %w = stablehlo.constant dense<"0xHEX"> : tensor<64x64xf32>
  %0 = stablehlo.dot %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
"""
_MODULES = {"shlo": "shlo.tools.cli", "shlo-opt": "shlo.tools.opt_main"}


def mutant(data: bytes, kind: str, seed: int) -> bytes:
    """`data` damaged in one of four ways, chosen and placed by `seed`."""
    rng = random.Random(f"{kind}-{seed}")
    data = bytearray(data)
    how = rng.choice(["flip", "flip", "truncate", "splice"])
    if how == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == "truncate":
        del data[rng.randrange(len(data)) :]
    else:
        start = rng.randrange(len(data))
        length = rng.randint(1, 64)
        chunk = data[start : start + length]
        data[start : start + length] = chunk * 2 if rng.random() < 0.5 else b""
    return bytes(data)


def _command(tool: str, *args: object) -> list[str]:
    return [sys.executable, "-m", _MODULES[tool], *map(str, args)]


class Inputs:
    """Valid inputs of every kind, and the command that reads each kind."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "x.mlir").write_text(ADD)
        weights = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(np.float32)
        (folder / "w.mlir").write_text(WEIGHTS.replace("HEX", weights.tobytes().hex().upper()))
        self._make("shlo-opt", folder / "x.mlir", "--emit-bytecode", "-o", folder / "x.mlirbc")
        self._make("shlo", "compile", folder / "x.mlir", "-o", folder / "x.vmfb")
        self._make("shlo", "compile", folder / "w.mlir", "--parameters", folder / "w.irpa",
                   "-o", folder / "w.vmfb")  # fmt: skip
        np.save(folder / "x.npy", np.arange(4, dtype=np.float32))

    @staticmethod
    def _make(tool: str, *args: object) -> None:
        done = subprocess.run(_command(tool, *args), capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    def original(self, kind: str) -> bytes:
        if kind == "meta":
            return (FIXTURE_BUNDLE / "functions" / "forward.meta").read_bytes()
        return (self.folder / f"{'w' if kind == 'irpa' else 'x'}.{kind}").read_bytes()

    def command(self, kind: str, work: Path, damaged: bytes) -> tuple[list[str], Path]:
        """The command reading `damaged` as a `kind` input, in `work`, and its output file."""
        out = work / ("out.npy" if kind in ("vmfb", "irpa", "npy") else "out")
        if kind == "meta":
            shutil.copytree(FIXTURE_BUNDLE, work / "bundle")
            (work / "bundle" / "functions" / "forward.meta").write_bytes(damaged)
            return _command("shlo", "compile", work / "bundle", "-o", out), out
        source = work / f"input.{kind}"
        source.write_bytes(damaged)
        run, one = ("shlo", "run"), "--input=4xf32=1 2 3 4"
        commands = {
            "mlir": ("shlo-opt", source, "-o", out),
            "mlirbc": ("shlo-opt", source, "-o", out),
            "vmfb": (*run, source, one, f"--output=@{out}"),
            "npy": (*run, self.folder / "x.vmfb", f"--input=@{source}", f"--output=@{out}"),
            "irpa": (*run, self.folder / "w.vmfb", "--parameters", source,
                     "--input=4x64xf32=1", f"--output=@{out}"),
        }  # fmt: skip
        return _command(*commands[kind]), out


def problem(inputs: Inputs, kind: str, seed: int, root: Path) -> str | None:
    """What went wrong with mutant `seed` of `kind`, or None when its command behaved."""
    work = root / f"{kind}-{seed}"
    work.mkdir()
    command, out = inputs.command(kind, work, mutant(inputs.original(kind), kind, seed))
    out.write_bytes(SENTINEL)
    where = f"{kind} mutant seed {seed} ({' '.join(command[2:])})"
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"{where}: still running after {TIMEOUT} s"
    said = done.stderr.strip()
    if done.returncode not in (0, 1):
        return f"{where}: exit {done.returncode}: {said[-500:]}"
    if "Traceback" in said or "a bug in shlo" in said:
        return f"{where}: {said[-800:]}"
    if done.returncode == 1 and not said:
        return f"{where}: exit 1 without a word"
    if done.returncode == 1 and out.read_bytes() != SENTINEL:
        return f"{where}: failed and changed its output file"
    shutil.rmtree(work)
    return None


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("valid"))


KINDS = ["mlir", "mlirbc", "vmfb", "irpa", "npy", "meta"]


def _battery(inputs: Inputs, kind: str, seeds: range, root: Path) -> None:
    check: Callable[[int], str | None] = lambda seed: problem(inputs, kind, seed, root)  # noqa: E731
    with ThreadPoolExecutor(2) as pool:
        problems = [found for found in pool.map(check, seeds) if found]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_inputs_end_in_a_clear_failure(inputs: Inputs, kind: str, tmp_path: Path) -> None:
    _battery(inputs, kind, range(COUNT // 4 if kind == "meta" else COUNT), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_many_damaged_inputs(inputs: Inputs, kind: str, tmp_path: Path) -> None:
    _battery(inputs, kind, range(COUNT, COUNT + SLOW_COUNT), tmp_path)
