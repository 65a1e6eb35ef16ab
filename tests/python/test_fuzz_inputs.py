"""Seeded mutants of every input kind shlo reads, through the commands users run and the Python
calls that read the same files.

Each mutant (bytes flipped, cut short, a run of bytes repeated or dropped) of a valid .mlir,
.mlirbc, .vmfb, .irpa (the weights, and the packed copies beside them), .npy and bundle metadata
file goes through its command in a child process, and through its Python call in a long-lived
Python process (`API`).  Whatever the damage:

  - the command ends with exit 0 or 1 (never a signal, never a hang), says why without a
    traceback or "a bug in shlo", and leaves its `-o` file as it was when it fails;
  - the Python call returns or raises a ShloError, and the process that made it lives on;
  - nothing is left in the mutant's folder but its input and output (a leftover), and nothing
    outside it changes (an escape: the valid inputs every mutant is made from are checked).

A failure names the kind and seed: `mutant(data, kind, seed)` rebuilds that input.
`SHLO_FUZZ_COUNT` sets how many mutants per kind (a quarter of it for bundle metadata, whose
command imports torch: seconds each); the slow test runs `SHLO_FUZZ_SLOW_COUNT` (1,000) more.
Each kind prints its tally (`pytest -s` shows it).
"""

from __future__ import annotations

import hashlib
import os
import random
import select
import shutil
import subprocess
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

FIXTURE_BUNDLE = Path(__file__).resolve().parent / "fixtures" / "torch_xla_bundle"
COUNT = int(os.environ.get("SHLO_FUZZ_COUNT", "16"))
SLOW_COUNT = int(os.environ.get("SHLO_FUZZ_SLOW_COUNT", "1000"))
TIMEOUT = 180  # seconds: beyond any one read here (the bytecode guard gives up at 60 s)
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
KINDS = ["mlir", "mlirbc", "vmfb", "irpa", "packed", "npy", "meta"]
# Each kind's Python call, on `path` (the damaged file, or the bundle or archive holding it).
API = """
import sys
import numpy as np
import shlo
from shlo.errors import ShloError
from shlo.runtime.loaded import LoadedModule
from shlo.torch.bundle import Bundle

valid = sys.argv[1]
one, weights_input = np.arange(4, dtype=np.float32), np.ones((4, 64), np.float32)
calls = {
    "mlir": lambda path: shlo.load(path),
    "mlirbc": lambda path: shlo.load(path),
    "vmfb": lambda path: LoadedModule(path)("main", one),
    "irpa": lambda path: LoadedModule(f"{valid}/w.vmfb", parameters=path)("main", weights_input),
    "meta": lambda path: Bundle(path)(np.ones((2, 4), np.float32)),
}
calls["packed"] = calls["irpa"]
for line in sys.stdin:
    kind, path = line.rstrip("\\n").split("\\t")
    try:
        calls[kind](path)
        said = "ok"
    except ShloError:
        said = "error"
    except Exception as error:
        said = f"bug {type(error).__name__}: {error}".replace("\\n", " ")[:500]
    print(said, flush=True)
"""
_NO_API = {"npy"}  # read by the commands only (`--input=@x.npy`)


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
    """Valid inputs of every kind, where each mutant goes, and the command that reads it."""

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
        name = {"irpa": "w.irpa", "packed": "w.encoded.irpa"}.get(kind, f"x.{kind}")
        return (self.folder / name).read_bytes()

    def digest(self) -> str:
        """Every valid input's bytes: no mutant's run may change them."""
        files = sorted(p for p in self.folder.rglob("*") if p.is_file())
        return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files)).hexdigest()

    def place(self, kind: str, work: Path, damaged: bytes) -> Path:
        """`damaged` written where `kind`'s readers take it from; what they are given."""
        if kind == "meta":
            shutil.copytree(FIXTURE_BUNDLE, work / "bundle")
            (work / "bundle" / "functions" / "forward.meta").write_bytes(damaged)
            return work / "bundle"
        if kind == "packed":  # the packed copies beside the archive they were made from
            shutil.copy(self.folder / "w.irpa", work / "input.irpa")
            (work / "input.encoded.irpa").write_bytes(damaged)
            return work / "input.irpa"
        (work / f"input.{kind}").write_bytes(damaged)
        return work / f"input.{kind}"

    def command(self, kind: str, source: Path, out: Path) -> list[str]:
        """The command reading `source` as a `kind` input and writing `out`."""
        run, one = ("shlo", "run"), "--input=4xf32=1 2 3 4"
        weights = (*run, self.folder / "w.vmfb", "--parameters", source, "--input=4x64xf32=1")
        commands = {
            "mlir": ("shlo-opt", source, "-o", out),
            "mlirbc": ("shlo-opt", source, "-o", out),
            "vmfb": (*run, source, one, f"--output=@{out}"),
            "npy": (*run, self.folder / "x.vmfb", f"--input=@{source}", f"--output=@{out}"),
            "irpa": (*weights, f"--output=@{out}"),
            "packed": (*weights, f"--output=@{out}"),
            "meta": ("shlo", "compile", source, "-o", out),
        }
        return _command(*commands[kind])


class Caller:
    """A Python process making each kind's call on one mutant after another; a new one replaces
    it when it dies (a caller death) or stops answering (a hang)."""

    def __init__(self, valid: Path) -> None:
        self.valid = valid
        self.process: subprocess.Popen | None = None
        self.status: int | None = None  # the last process's, once it is gone

    def call(self, kind: str, path: Path) -> str:
        """`ok`, `error` (a ShloError), `bug ...`, `died ...` or `hung`."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", API, str(self.valid)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            )  # fmt: skip
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{kind}\t{path}\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        said = self.process.stdout.readline().strip() if ready else None
        if said:
            return said
        self.close()
        return "hung" if said is None else f"died (status {self.status})"

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.status = self.process.wait()
            self.process = None


def check(inputs: Inputs, caller: Caller, kind: str, seed: int, root: Path) -> tuple[str, str]:
    """Mutant `seed` of `kind` through its command and its Python call: (what happened, the
    problem or "")."""
    work = root / f"{kind}-{seed}"
    work.mkdir()
    source = inputs.place(kind, work, mutant(inputs.original(kind), kind, seed))
    out = work / ("out.npy" if kind in ("vmfb", "irpa", "packed", "npy") else "out")
    command = inputs.command(kind, source, out)
    out.write_bytes(SENTINEL)
    outcome, problem = _run(command, out, f"{kind} mutant seed {seed} ({' '.join(command[2:])})")
    if not problem and kind not in _NO_API:
        answer = caller.call(kind, source)
        outcome += f", Python {answer}"
        if answer == "hung" or answer.startswith(("died", "bug")):
            kinds = {"hung": "hang", "died": "caller death", "bug": "traceback"}
            outcome = kinds[answer.split()[0]]
            problem = f"{kind} mutant seed {seed}: the Python call {answer}"
    if not problem:
        shutil.rmtree(work)
    return outcome, problem


def _run(command: list[str], out: Path, where: str) -> tuple[str, str]:
    """`command`'s outcome, and what it did wrong ("" if nothing)."""
    before = sorted(os.listdir(out.parent))
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "hang", f"{where}: still running after {TIMEOUT} s"
    said = done.stderr.strip()
    if done.returncode not in (0, 1):
        return "caller death", f"{where}: exit {done.returncode}: {said[-500:]}"
    if "Traceback" in said or "a bug in shlo" in said or (done.returncode == 1 and not said):
        return "traceback", f"{where}: exit {done.returncode}: {said[-800:] or 'not a word'}"
    if done.returncode == 1 and out.read_bytes() != SENTINEL:
        return "clobber", f"{where}: failed and changed its output file"
    if (after := sorted(os.listdir(out.parent))) != before:
        return "leftover", f"{where}: its folder held {before} before, {after} after"
    contained = " (a native crash, contained)" if "crashed" in said else ""
    return f"exit {done.returncode}{contained}", ""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("valid"))


def _battery(inputs: Inputs, kind: str, seeds: range, root: Path) -> None:
    before = inputs.digest()
    callers, opened = threading.local(), []  # a Python caller per worker thread

    def one(seed: int) -> tuple[str, str]:
        if not hasattr(callers, "caller"):
            callers.caller = Caller(inputs.folder)
            opened.append(callers.caller)
        return check(inputs, callers.caller, kind, seed, root)

    try:
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(one, seeds))
    finally:
        for caller in opened:
            caller.close()
    problems = [problem for _, problem in results if problem]
    tally = Counter(outcome for outcome, _ in results)
    if inputs.digest() != before:
        problems.append(f"{kind}: a run changed the valid inputs outside its own folder")
        tally["escape"] += 1
    print(f"\n{kind}: {len(seeds)} mutants: " + ", ".join(f"{n} {o}" for o, n in tally.items()))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_inputs_end_in_a_clear_failure(inputs: Inputs, kind: str, tmp_path: Path) -> None:
    _battery(inputs, kind, range(COUNT // 4 if kind == "meta" else COUNT), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_many_damaged_inputs(inputs: Inputs, kind: str, tmp_path: Path) -> None:
    count = SLOW_COUNT // 4 if kind == "meta" else SLOW_COUNT
    _battery(inputs, kind, range(COUNT, COUNT + count), tmp_path)
