"""Seeded mutants of every input kind shlo reads, through every command users run and every
Python call that reads it.

Each mutant (bytes flipped, cut short, a run of bytes repeated or dropped) of a valid .mlir,
.mlirbc, portable artifact (VHLO), .vmfb, .irpa (the weights, and the packed copies beside
them), .npy, bundle metadata file and cache entry (a compile, and the list of passes) goes
through each of its commands (as `python -m` runs them, forked from a process that has imported
what they import) and each of its Python calls (in a long-lived Python process, `API`).
Whatever the damage:

  - the command ends with exit 0 or 1 (never a signal, never a hang), says why in one line
    (MLIR's diagnostic may show its source line and a caret) without a traceback or "a bug in
    shlo", and leaves its `-o` file as it was when it fails;
  - the Python call returns or raises a ShloError of one such line, and the process that made
    it lives on;
  - nothing is left in the mutant's folder but its input and output (a leftover), and nothing
    outside it changes (an escape: the valid inputs every mutant is made from are checked).

A failure names the kind and seed: `mutant(data, kind, seed)` rebuilds that input.
`SHLO_FUZZ_COUNT` sets how many mutants per kind (fewer for the kinds whose every mutant
compiles, `_COSTLY`); the slow test runs `SHLO_FUZZ_SLOW_COUNT` (1,000) more of each kind, from
seed `SHLO_FUZZ_COUNT` on, `SHLO_FUZZ_WORKERS` (2) at a time.  Each kind prints its tally by
command and call (`pytest -s`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from shlo.ir.versions import unsealed

FIXTURE_BUNDLE = Path(__file__).resolve().parent / "fixtures" / "torch_xla_bundle"
COUNT = int(os.environ.get("SHLO_FUZZ_COUNT", "2"))
SLOW_COUNT = int(os.environ.get("SHLO_FUZZ_SLOW_COUNT", "1000"))
WORKERS = int(os.environ.get("SHLO_FUZZ_WORKERS", "2"))
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
_MODULES = {"shlo": "shlo.tools.cli", "shlo-opt": "shlo.tools.opt_main",
            "shlo-translate": "shlo.tools.translate_main"}  # fmt: skip
KINDS = ["mlir", "mlirbc", "vhlo", "vmfb", "irpa", "packed", "npy", "meta", "cache"]
# Kinds whose every mutant compiles (meta: a bundle; cache: an entry evicted and compiled anew):
# fewer of them in the fast test.
_COSTLY = {"meta": 4, "cache": 8}
# Each kind's Python calls, by name, on `path` (the damaged file, or the bundle, archive or cache
# folder holding it); one line per mutant: each call's outcome, or the first bug.
API = """
import json, os, sys
from pathlib import Path
import numpy as np

valid = Path(sys.argv[1])
one, weights_input = np.arange(4, dtype=np.float32), np.ones((4, 64), np.float32)

def load(path):
    import shlo
    return shlo.load(path)

def deserialize(path):
    from shlo.ir.portable import deserialize
    return deserialize(Path(path).read_bytes())

def loaded(path, parameters=None, *args):
    from shlo.runtime.loaded import LoadedModule
    return LoadedModule(path, parameters=parameters)("main", *args)

def values(path):
    from shlo.runtime.value_syntax import parse_values
    return parse_values([f"@{path}"])

def array(path):
    from shlo.torch.bundle import VariableSignature, load_array
    return load_array(Path(path), VariableSignature([4], "float32"))

def bundle(path):
    from shlo.torch.bundle import Bundle
    return Bundle(path)(np.ones((2, 4), np.float32))

def cached(path):
    from shlo.backend.compile import compile_module
    from shlo.runtime.loaded import LoadedModule
    os.environ["SHLO_CACHE_DIR"] = path
    compiled = compile_module(load(valid / "x.mlir"), "llvm-cpu", use_cache=True)
    return LoadedModule(compiled.vmfb)("main", one)

weights = lambda vmfb: lambda path: loaded(str(valid / vmfb), path, weights_input)
calls = {
    "mlir": {"shlo.load": load},
    "mlirbc": {"shlo.load": load},
    "vhlo": {"shlo.load": load, "portable.deserialize": deserialize},
    "vmfb": {"LoadedModule": lambda path: loaded(path, None, one)},
    "irpa": {"LoadedModule(parameters=)": weights("wv.vmfb")},
    "packed": {"LoadedModule(parameters=)": weights("w.vmfb")},
    "npy": {"parse_values": values, "load_array": array},
    "meta": {"Bundle": bundle},
    "cache": {"compile_module(use_cache=True)": cached},
}
from shlo.errors import ShloError
for line in sys.stdin:
    kind, path = line.rstrip("\\n").split("\\t")
    said = {}
    for name, call in calls[kind].items():
        try:
            call(path)
            said[name] = "ok"
        except ShloError as error:
            said[name] = f"error\\n{error}"
        except Exception as error:
            said[name] = f"bug {type(error).__name__}: {error}".replace("\\n", " ")[:500]
    print(json.dumps(said), flush=True)
"""
# Each command starts as a fork of one process that has imported what the commands import
# (torch and both wheels: seconds of every command's time), then runs as `python -m` runs it.
SERVER = """
import json, os, sys
import shlo.backend.compile, shlo.ir.load, shlo.ir.portable, shlo.runtime.loaded, shlo.torch.bundle

for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        break
    print(pid, flush=True)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
else:
    sys.exit(0)
import runpy

os.setpgid(0, 0)
written = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
for fd, (name, flags) in enumerate([(os.devnull, os.O_RDONLY), (request["stdout"], written),
                                    (request["stderr"], written)]):
    os.dup2(os.open(name, flags, 0o644), fd)
sys.stdin, sys.stdout = open(0, closefd=False), open(1, "w", closefd=False)
sys.stderr = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)
os.environ.update(request["env"])
sys.argv = ["-m", *request["args"]]
runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
"""
_FRESH = {"cache"}  # a Python process of its own per mutant: compiles are cached in memory


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


class Inputs:
    """Valid inputs of every kind, where each mutant goes, and the commands that read it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "x.mlir").write_text(ADD)
        weights = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(np.float32)
        (folder / "w.mlir").write_text(WEIGHTS.replace("HEX", weights.tobytes().hex().upper()))
        self._make("shlo-opt", folder / "x.mlir", "--emit-bytecode", "-o", folder / "x.mlirbc")
        self._make("shlo-translate", folder / "x.mlir", "--serialize", "-o", folder / "x.vhlo")
        self._make("shlo", "compile", folder / "w.mlir", "--parameters", folder / "w.irpa",
                   "-o", folder / "w.vmfb")  # fmt: skip
        # VMVX reads its weights from the archive alone (llvm-cpu also from the packed copies,
        # which are refused once the archive they were packed from changes).
        self._make("shlo", "compile", folder / "w.mlir", "--target", "vmvx", "--parameters",
                   folder / "wv.irpa", "-o", folder / "wv.vmfb")  # fmt: skip
        np.save(folder / "x.npy", np.arange(4, dtype=np.float32))
        made = Caller(folder).call("cache", folder / "cache")
        assert made == {"compile_module(use_cache=True)": "ok"}, made
        self._make("shlo-opt", "--list-passes", cache=folder / "cache")
        (self.entry,) = (folder / "cache").glob("*.vmfb")
        (self.passes,) = (folder / "cache").glob("passes.json-*")
        (folder / "x.vmfb").write_bytes(unsealed(self.entry.read_bytes()))  # `shlo compile`'s

    @staticmethod
    def _make(tool: str, *args: object, cache: Path | None = None) -> None:
        command = [sys.executable, "-m", _MODULES[tool], *map(str, args)]
        env = {**os.environ, "SHLO_CACHE_DIR": str(cache)} if cache else None
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr

    def original(self, kind: str) -> bytes:
        if kind == "meta":
            return (FIXTURE_BUNDLE / "functions" / "forward.meta").read_bytes()
        if kind == "cache":
            return self.entry.read_bytes()
        name = {"irpa": "wv.irpa", "packed": "w.encoded.irpa"}.get(kind, f"x.{kind}")
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
        if kind == "cache":  # the entries a compile and a pass pipeline find (and evict)
            (work / "cache").mkdir(exist_ok=True)
            (work / "cache" / self.entry.name).write_bytes(damaged)
            seed = int(work.name.rpartition("-")[2])
            passes = mutant(self.passes.read_bytes(), "cache-text", seed)
            (work / "cache" / self.passes.name).write_bytes(passes)
            return work / "cache"
        (work / f"input.{kind}").write_bytes(damaged)
        return work / f"input.{kind}"

    def commands(self, kind: str, source: Path, out: Path) -> dict[str, tuple]:
        """Each command reading `source` as a `kind` input and writing `out`, by name."""
        one = "--input=4xf32=1 2 3 4"
        ir = {"shlo-opt": ("shlo-opt", source, "-o", out),
              "shlo-translate": ("shlo-translate", source, "-o", out),
              "shlo compile": ("shlo", "compile", source, "-o", out)}  # fmt: skip
        if kind == "vhlo":
            ir["shlo-translate"] = ("shlo-translate", source, "--deserialize", "-o", out)
        if kind in ("mlir", "mlirbc", "vhlo"):
            return ir
        if kind == "cache":  # compiles: cached for compile_module(use_cache=True) only
            return {"shlo-opt --list-passes": ("shlo-opt", "--list-passes")}
        module, inputs = {
            "vmfb": (source, [one]),
            "npy": (self.folder / "x.vmfb", [f"--input=@{source}"]),
            "irpa": (self.folder / "wv.vmfb", ["--parameters", source, "--input=4x64xf32=1"]),
            "packed": (self.folder / "w.vmfb", ["--parameters", source, "--input=4x64xf32=1"]),
            "meta": (source, ["--input=2x4xf32=1"]),
        }[kind]
        commands = {
            "shlo run": ("shlo", "run", module, *inputs, f"--output=@{out}"),
            "shlo bench": ("shlo", "bench", module, *inputs, "--runs", "1"),
        }
        if kind == "meta":
            commands["shlo compile"] = ("shlo", "compile", source, "-o", out)
        return commands


class Commands:
    """Runs commands as forks of a `SERVER` process."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.process: subprocess.Popen | None = None

    def run(self, command: tuple, env: dict[str, str]) -> tuple[int | None, str]:
        """`command`'s exit status (None: still running after TIMEOUT, killed) and stderr."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        assert self.process.stdin and self.process.stdout
        tool, *args = map(str, command)
        streams = {name: str(self.scratch / name) for name in ("stdout", "stderr")}
        request = {"module": _MODULES[tool], "args": args, "env": env, **streams}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        pid = int(self.process.stdout.readline())
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        if not ready:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        status = int(self.process.stdout.readline())
        return (status if ready else None), Path(streams["stderr"]).read_text(errors="replace")

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class Caller:
    """A Python process making each kind's calls on one mutant after another; a new one
    replaces it when it dies (a caller death) or stops answering (a hang), and after each
    mutant of a `_FRESH` kind."""

    def __init__(self, valid: Path) -> None:
        self.valid = valid
        self.process: subprocess.Popen | None = None
        self.status: int | None = None  # the last process's, once it is gone

    def call(self, kind: str, path: Path) -> dict[str, str]:
        """Each call's outcome by name: `ok`, `error` and its message on the next line (a
        ShloError) or `bug ...`; or, for the process, `died ...` or `hung`."""
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
        if said and kind not in _FRESH:
            return json.loads(said)
        self.close()
        if said:
            return json.loads(said)
        return {"Python": "hung" if said is None else f"died (status {self.status})"}

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.status = self.process.wait()
            self.process = None


class Worker:
    """What one thread of the battery runs mutants with."""

    def __init__(self, inputs: Inputs, scratch: Path) -> None:
        scratch.mkdir()
        self.inputs = inputs
        self.commands = Commands(scratch)
        self.caller = Caller(inputs.folder)

    def close(self) -> None:
        self.commands.close()
        self.caller.close()


_PROBLEMS = ("traceback", "caller death", "hang", "clobber", "leftover", "escape", "verbose")


def check(worker: Worker, kind: str, seed: int, root: Path) -> tuple[list[str], list[str]]:
    """Mutant `seed` of `kind` through its commands and its Python calls: what each entry point
    did (`name: outcome`), and the problems."""
    inputs = worker.inputs
    work = root / f"{kind}-{seed}"
    work.mkdir()
    damaged = mutant(inputs.original(kind), kind, seed)
    outcomes, problems = [], []
    source = inputs.place(kind, work, damaged)
    out = work / ("out" if kind in ("mlir", "mlirbc", "vhlo") else "out.npy")
    env = {"SHLO_CACHE_DIR": str(source)} if kind == "cache" else {}
    for name, command in inputs.commands(kind, source, out).items():
        out.write_bytes(SENTINEL)
        outcome, problem = _run(worker.commands, command, env, out)
        outcomes.append(f"{name}: {outcome}")
        if problem:
            problems.append(f"{kind} mutant seed {seed}, {' '.join(map(str, command))}: {problem}")
        out.unlink()
    if kind == "cache":
        inputs.place(kind, work, damaged)  # again: the command may have rebuilt it
    for name, answer in worker.caller.call(kind, source).items():
        answer, _, message = answer.partition("\n")
        if len(_own_lines(message)) > 1:
            problems.append(f"{kind} mutant seed {seed}: the Python call {name} said {message}")
            answer = "verbose"
        elif answer.startswith(("hung", "died", "bug")):
            kinds = {"hung": "hang", "died": "caller death", "bug": "traceback"}
            problems.append(f"{kind} mutant seed {seed}: the Python call {name} {answer}")
            answer = kinds[answer.split()[0]]
        outcomes.append(f"{name}: {answer}")
    if not problems:
        shutil.rmtree(work)
    return outcomes, problems


def _run(commands: Commands, command: tuple, env: dict[str, str], out: Path) -> tuple[str, str]:
    """`command`'s outcome, and what it did wrong ("" if nothing)."""
    before = sorted(os.listdir(out.parent))
    status, said = commands.run(command, env)
    said = said.strip()
    if status is None:
        return "hang", f"still running after {TIMEOUT} s"
    if status not in (0, 1):
        return "caller death", f"exit {status}: {said[-500:]}"
    if "Traceback" in said or "a bug in shlo" in said or (status == 1 and not said):
        return "traceback", f"exit {status}: {said[-800:] or 'not a word'}"
    if status == 1 and len(own := _own_lines(said)) > 1:
        return "verbose", f"exit {status}, {len(own)} lines: {said[-800:]}"
    if status == 1 and out.read_bytes() != SENTINEL:
        return "clobber", "failed and changed its output file"
    if (after := sorted(os.listdir(out.parent))) != before:
        return "leftover", f"its folder held {before} before, {after} after"
    contained = " (a native crash, contained)" if "crashed" in said else ""
    return f"exit {status}{contained}", ""


_DIAGNOSTIC = re.compile(r"^(?:.+?:\d+:\d+|<unknown>:0): (?:error|warning|note|remark): ")


def _own_lines(said: str) -> list[str]:
    """The lines of `said` in shlo's own words: not MLIR's diagnostics (each with the source line
    and caret under it, as mlir-opt prints them), nor the line saying the output was left as it
    was."""
    lines = said.split("\n")
    carets = {i for i, line in enumerate(lines) if line.strip().startswith("^")}
    detail = carets | {i - 1 for i in carets}
    return [line for i, line in enumerate(lines) if i not in detail and line.strip()
            and not _DIAGNOSTIC.match(line) and not line.endswith(" left as it was")]  # fmt: skip


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("valid"))


def _battery(inputs: Inputs, kind: str, seeds: range, root: Path) -> None:
    before = inputs.digest()
    workers, opened = threading.local(), []  # a server and a Python caller per thread

    def one(seed: int) -> tuple[list[str], list[str]]:
        if not hasattr(workers, "worker"):
            workers.worker = Worker(inputs, root / f".worker-{threading.get_ident()}")
            opened.append(workers.worker)
        return check(workers.worker, kind, seed, root)

    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(one, seeds))
    finally:
        for worker in opened:
            worker.close()
    problems = [problem for _, found in results for problem in found]
    tally = Counter(outcome for outcomes, _ in results for outcome in outcomes)
    if inputs.digest() != before:
        problems.append(f"{kind}: a run changed the valid inputs outside its own folder")
    found = Counter(problem for outcomes, _ in results for o in outcomes
                    if (problem := o.split(": ", 1)[1]) in _PROBLEMS)  # fmt: skip
    found["escape"] += inputs.digest() != before
    by_entry: dict[str, Counter] = {}
    for outcome, n in tally.items():
        name, said = outcome.split(": ", 1)
        by_entry.setdefault(name, Counter())[said] += n
    print(f"\n{kind}: {len(seeds)} mutants (seeds {seeds.start}-{seeds.stop - 1}); problems: "
          + ", ".join(f"{found[p]} {p}" for p in _PROBLEMS))  # fmt: skip
    for name, said in by_entry.items():
        print(f"  {name}: " + ", ".join(f"{n} {o}" for o, n in sorted(said.items())))
    assert not problems, "\n".join(problems)


def _count(kind: str, count: int) -> int:
    return max(1, count // _COSTLY.get(kind, 1))


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_inputs_end_in_a_clear_failure(inputs: Inputs, kind: str, tmp_path: Path) -> None:
    _battery(inputs, kind, range(_count(kind, COUNT)), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_many_damaged_inputs(inputs: Inputs, kind: str, tmp_path: Path) -> None:
    _battery(inputs, kind, range(COUNT, COUNT + SLOW_COUNT), tmp_path)
