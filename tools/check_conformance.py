"""Ratchets on the two external suites: fail when shlo passes fewer tests than it did.

`stablehlo`: upstream StableHLO's lit suite (`run_lit.py`) with shlo-opt and shlo-translate
from `.venv` and LLVM's FileCheck, which upstream's checks are written for (`tools/setup`
installs it; the Python port in `.venv` reads a CHECK-NOT before a CHECK-NEXT past the next
match); any vacuous file (one that passes with its expectations broken) fails too.
`torch-e2e`: a fixed slice of torch-mlir's e2e suite (`run_e2e.py`, every SLICE-th test
in the runner's own order) through `shlo.api:compile_torch`; `torch-e2e-vulkan` the same slice
compiled for Vulkan (`tools/e2e_vulkan.py`; not in `tools/check`).  `opinfo`: a fixed slice
of PyTorch's OpInfo database through `tools/torch_sweep.py`, every OPINFO_SLICE-th (op, dtype)
in float32 with special values; any mismatch fails it too (a wrong number is never
within the ratchet).  The suites live beside the
repository (`../shared/conformance/`) or under $SHLO_CONFORMANCE_DIR, never inside it; without
them this says so and exits 0.  Each prints the runner's summary and exits 1 when its pass rate
falls below the floor in `tools/conformance_floor.json`.
`jax-harness` and `jax-back-compat`: JAX's primitive test harnesses (a slice, on llvm-cpu) and
its CPU export back-compatibility data (in the interpreter) through `tools/jax_sweep.py`,
against XLA:CPU; any mismatch fails them (docs/jax-conformance.md).
Raise the floor when the rate goes up.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = ROOT / "tools" / "conformance_floor.json"
TOOLS = ROOT / ".venv" / "bin"
SLICE = 6  # the e2e slice: every 6th test, about 270 of 1,600 (under 10 minutes on 2 cores)
OPINFO_SLICE = 30
JAX_HARNESS_SLICE = 100  # JAX's primitive harnesses: every 100th of 5,594
# Statuses that are neither a pass nor a failure of shlo's: the suite cannot run the test, or
# eager / torch.export cannot run the sample, or it is random (checked by distribution).
NOT_COUNTED = ("unsupported", "skipped", "eager_error", "export_error", "random")
# Statuses that fail a suite whatever its rate: a check that cannot fail, a wrong number.
# `known` in the floor file lists the tests (for opinfo: the entries) whose mismatch is known
# and reported, not yet fixed; the list may only shrink.
NEVER = {
    "stablehlo": ("vacuous",),
    "opinfo": ("mismatch",),
    "jax-harness": ("mismatch",),
    "jax-back-compat": ("mismatch",),
}


def llvm_filecheck() -> str | None:
    """LLVM's FileCheck on PATH, else the newest of Debian's `llvm-N-tools`."""
    installed = glob.glob("/usr/lib/llvm-*/bin/FileCheck")
    newest = max(installed, key=lambda path: int(path.split("-")[1].split("/")[0]), default=None)
    return shutil.which("FileCheck") or newest


def _stablehlo(suite: Path, jobs: int, report: Path) -> list[str] | None:
    runner = suite / "stablehlo" / "run_lit.py"
    if not runner.exists():
        return None
    filecheck = llvm_filecheck()
    if filecheck is None:
        raise SystemExit("stablehlo: LLVM's FileCheck is missing (tools/setup installs it)")
    command = [sys.executable, str(runner), "--tests-dir", str(suite / "stablehlo")]
    command += ["--opt", str(TOOLS / "shlo-opt"), "--translate", str(TOOLS / "shlo-translate")]
    return [*command, "--filecheck", filecheck, "--jobs", str(jobs), "--json", str(report)]


def _torch_e2e(
    suite: Path, jobs: int, report: Path, backend: str = "shlo.api:compile_torch"
) -> list[str] | None:
    runner = suite / "torch_e2e" / "run_e2e.py"
    if not runner.exists():
        return None
    python = str(TOOLS / "python")
    command = [python, str(runner), "--suite", str(suite / "torch_e2e" / "suite")]
    command += ["--backend", backend]
    names = subprocess.run([*command, "--list"], capture_output=True, text=True, check=True)
    chosen = names.stdout.split()[::SLICE]
    pattern = f"^({'|'.join(chosen)})$"
    return [*command, "--filter", pattern, "--jobs", str(jobs), "--json", str(report), "-q"]


def _torch_e2e_vulkan(suite: Path, jobs: int, report: Path) -> list[str] | None:
    backend = f"{ROOT / 'tools' / 'e2e_vulkan.py'}:compile_for_vulkan"
    return _torch_e2e(suite, jobs, report, backend)


def _opinfo(suite: Path, jobs: int, report: Path) -> list[str]:
    command = [str(TOOLS / "python"), str(ROOT / "tools" / "torch_sweep.py")]
    command += ["--dtypes", "float32", "--special-values", "--slice", str(OPINFO_SLICE)]
    return [*command, "--jobs", str(jobs), "--json", str(report), "-q"]


def _jax(suite: str, target: str, jobs: int, report: Path) -> list[str]:
    command = [str(TOOLS / "python"), str(ROOT / "tools" / "jax_sweep.py"), "--suite", suite]
    return [*command, "--target", target, "--jobs", str(jobs), "--json", str(report), "-q"]


def _jax_harness(suite: Path, jobs: int, report: Path) -> list[str]:
    """Every JAX_HARNESS_SLICE-th of JAX's primitive harnesses, on llvm-cpu."""
    return [*_jax("harness", "llvm-cpu", jobs, report), "--slice", str(JAX_HARNESS_SLICE)]


def _jax_back_compat(suite: Path, jobs: int, report: Path) -> list[str]:
    """JAX's CPU back-compatibility data, in the interpreter (llvm-cpu: the slow sweep)."""
    return _jax("back-compat", "interpreter", jobs, report)


SUITES = {
    "stablehlo": _stablehlo,
    "torch-e2e": _torch_e2e,
    "torch-e2e-vulkan": _torch_e2e_vulkan,
    "opinfo": _opinfo,
    "jax-harness": _jax_harness,
    "jax-back-compat": _jax_back_compat,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite_name", choices=SUITES, help="which suite's ratchet to run")
    default = os.environ.get("SHLO_CONFORMANCE_DIR") or ROOT.parent / "shared" / "conformance"
    parser.add_argument("--suite", type=Path, default=default, help="the conformance folder")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="keep the runner's report here")
    args = parser.parse_args()
    name = args.suite_name
    with tempfile.TemporaryDirectory(prefix="shlo-conformance-") as scratch:
        report = args.json or Path(scratch) / "report.json"
        command = SUITES[name](args.suite, args.jobs, report)
        if command is None:
            print(f"{name}: no suite under {args.suite}; skipped")
            return 0
        done = subprocess.run(command, capture_output=True, text=True)
        if not report.exists():
            print(done.stdout[-2000:] + done.stderr[-2000:])
            print(f"{name}: the runner wrote no report")
            return 1
        written = json.loads(report.read_text())
        tests = written.get("tests") or [
            {**r, "name": f"{r['entry']} {r['dtype']} #{r['sample']}"} for r in written["results"]
        ]
    floors = json.loads(FLOOR.read_text())
    return _judge(name, tests, floors[name], set(floors.get("known", {}).get(name, ())))


def _judge(name: str, tests: list[dict], floor: float, known: set[str]) -> int:
    """Print the summary; 1 when the rate is below `floor` or a test has a status the suite
    never allows."""
    counts = Counter(test["status"] for test in tests)
    counted = len(tests) - sum(counts[status] for status in NOT_COUNTED)
    rate = counts["pass"] / counted if counted else 0.0
    summary = ", ".join(f"{status} {n}" for status, n in sorted(counts.items()))
    print(f"{name}: {len(tests)} tests: {summary} => {rate:.1%} (floor {floor:.1%})")
    label = "rel" if name == "stablehlo" else "name"
    problems = []
    for status in NEVER.get(name, ()):
        found = [t[label] for t in tests if t["status"] == status]
        if seen := sorted({t["entry"] for t in tests if t["status"] == status} & known):
            print(f"{name}: known {status}es, not yet fixed: {', '.join(seen)}")
        if new := [n for n in found if n.split()[0] not in known]:
            problems.append(f"{status} (never allowed): {', '.join(new)}")
    if rate < floor:
        problems.append(f"pass rate {rate:.1%} is below the floor {floor:.1%}")
    if problems:
        failing = [t[label] for t in tests if t["status"] not in ("pass", *NOT_COUNTED)]
        print(f"{name}: not passing: " + ", ".join(failing))
        for problem in problems:
            print(f"{name}: FAILED: {problem}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
