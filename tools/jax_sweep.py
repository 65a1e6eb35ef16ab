"""JAX's own yardsticks through shlo, against XLA:CPU: its primitive test harnesses
(`--suite harness`, `test_harnesses.all_harnesses`) or its CPU export back-compatibility data
(`--suite back-compat`, stored exports with their inputs and XLA's outputs, LAPACK calls
included).

Each case is exported on CPU by JAX in a child process (`shlo.jax.harness_child`; what JAX
cannot export or run on CPU is `export_error`, counted apart), then rewritten and flattened by
shlo and run on `--target` (llvm-cpu, vulkan, or shlo's interpreter) in a process of its own,
so that a native crash or a hang is that case's `crash` or `timeout` (`--timeout`: CPU
seconds, so that the verdict does not depend on the machine's load).  Statuses:
pass, mismatch (a wrong number: fails the sweep whatever the rate), refused (shlo's one-line
reason), export_error, crash, timeout.  The rate is pass / every case JAX could export.

  tools/jax_sweep.py --suite back-compat --target interpreter --json bc.json
  tools/jax_sweep.py --suite harness --slice 40 --filter '^sin|^cos' --jobs 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import cast

from sweep_summary import summary

from shlo.ir.output import write_file
from shlo.jax import harness

NOT_COUNTED = ("export_error",)
POLL_S = 1.0  # how often a worker's CPU time is read (a scan of /proc)
HANG_FACTOR = 10  # a case still running after this many times its CPU budget on the clock
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
EXPORT_S = 30.0  # the JAX child's time to export a case (and start)
KIND = {"harness": "harness", "back-compat": "back_compat"}


def _work(connection: Connection, stem: str, target: str) -> None:
    """A case's process: its verdict sent back; an exception of shlo's own (a bug, not a
    refusal) is the case's crash, in one line."""
    try:
        verdict = harness.judge(Path(stem), target)
    except Exception as error:
        verdict = {"status": "crash", "detail": f"{type(error).__name__}: {error}"[:300]}
    connection.send(verdict)


def judge_alone(stem: Path, target: str, budget: float) -> dict[str, str]:
    """The case's verdict from a process of its own, forked from a server that has imported
    shlo but run nothing, so that no earlier case's state (a heap another case damaged) bears
    on it; `timeout` once that process and its children (iree-compile) have used `budget` CPU
    seconds: CPU time, unlike the clock, does not grow with the machine's load.  The clock
    stops a case that hangs without computing."""
    context = multiprocessing.get_context("forkserver")
    ours, theirs = context.Pipe()
    process = context.Process(target=_work, args=(theirs, str(stem), target), daemon=True)
    process.start()
    theirs.close()  # so that the process's death reads as the end of the pipe
    started, pid = time.monotonic(), cast(int, process.pid)
    try:
        while not ours.poll(POLL_S):
            used, waited = cpu_seconds(pid), time.monotonic() - started
            if used > budget or waited > HANG_FACTOR * budget:
                return _ended(process, "timeout", f"{used:.0f} CPU s in {waited:.0f} s")
        verdict: dict[str, str] = ours.recv()
    except (EOFError, ConnectionError):
        return _ended(process, "crash", f"after {time.monotonic() - started:.0f} s")
    process.join()
    return verdict


def _ended(process: BaseProcess, status: str, detail: str) -> dict[str, str]:
    """A case's process killed (a timeout) or reaped (a crash), as the case's verdict."""
    process.kill()
    process.join()
    code = process.exitcode
    how = f"signal {signal.Signals(-code).name}" if code and code < 0 else f"exit code {code}"
    return {"status": status, "detail": f"worker {how}, {detail}"}


def cpu_seconds(root: int) -> float:
    """CPU time used by process `root` and its descendants, live or reaped (/proc)."""
    stats = {}
    for entry in Path("/proc").iterdir():
        try:
            text = (entry / "stat").read_text() if entry.name.isdigit() else ""
        except OSError:  # a process that ended meanwhile
            continue
        if text:  # fields from the 3rd (state) on: [1] ppid, [11:15] utime stime cutime cstime
            stats[int(entry.name)] = text[text.rindex(")") + 2 :].split()
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += sum(int(f) for f in stats[pid][11:15]) if pid in stats else 0
        todo.extend(children.get(pid, ()))
    return total / CLOCK_TICKS


def names(suite: str) -> list[str]:
    """Every case of the suite (asked of the JAX child), sorted by name: JAX builds its list
    of harnesses by iterating over sets, so its own order, and with it the cases a slice
    takes, changes from one process to the next."""
    command = [sys.executable, "-m", "shlo.jax.harness_child", "--list", KIND[suite]]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"jax_sweep: JAX could not list the {suite} cases: {last}")
    return sorted(done.stdout.split())


def _run(args: argparse.Namespace, chosen: list[str], folder: Path) -> list[dict]:
    cases = [{"kind": KIND[args.suite], "name": name} for name in chosen]
    answers = harness.export_cases(cases, folder, timeout=EXPORT_S * (1 + len(cases)))
    multiprocessing.get_context("forkserver").set_forkserver_preload([harness.__name__])

    def one(index: int) -> dict:
        name, answer = chosen[index], answers[index]
        if "export_error" in answer:
            return {
                "name": name,
                "entry": name,
                "status": "export_error",
                "detail": answer["export_error"],
            }
        verdict = judge_alone(folder / str(index), args.target, args.timeout)
        return {"name": name, "entry": name, **verdict}

    with ThreadPoolExecutor(args.jobs) as pool:
        return list(pool.map(one, range(len(chosen))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=KIND, default="harness")
    parser.add_argument("--target", choices=harness.TARGETS, default="llvm-cpu")
    parser.add_argument("--filter", help="a regular expression the case's name must match")
    parser.add_argument("--slice", type=int, default=1, help="every N-th case")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="CPU seconds a case may use (with its compile)"
    )
    parser.add_argument("--json", type=Path, help="write every case's verdict here")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    pattern = re.compile(args.filter or "")
    chosen = [n for n in names(args.suite) if pattern.search(n)][:: args.slice]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="shlo-jax-sweep-") as scratch:
        try:
            results = _run(args, chosen, Path(scratch))
        except harness.HarnessError as error:
            raise SystemExit(f"jax_sweep: {error}") from None
    line, _ = summary(results, NOT_COUNTED, "cases")
    if not args.quiet:
        for r in results:
            if r["status"] not in ("pass", *NOT_COUNTED):
                print(f"  {r['name']}: {r['status']}: {r.get('detail', '')[:200]}")
    if args.json:
        config = {k: str(v) for k, v in vars(args).items() if k != "json"}
        write_file(args.json, json.dumps({"config": config, "tests": results}, indent=1).encode())
    print(f"JAX {args.suite} sweep on {args.target} ({time.monotonic() - started:.0f} s): {line}")
    return 1 if any(r["status"] == "mismatch" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
