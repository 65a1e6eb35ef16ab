"""JAX's own yardsticks through shlo, against XLA:CPU: its primitive test harnesses
(`--suite harness`, `test_harnesses.all_harnesses`) or its CPU export back-compatibility data
(`--suite back-compat`, stored exports with their inputs and XLA's outputs, LAPACK calls
included).

Each case is exported on CPU by JAX in a child process (`shlo.jax.harness_child`; what JAX
cannot export or run on CPU is `export_error`, counted apart), then rewritten and flattened by
shlo and run on `--target` (llvm-cpu, vulkan, or shlo's interpreter) in a worker process of
its own, so that a native crash or a hang is that case's `crash` or `timeout`.  Statuses:
pass, mismatch (a wrong number: fails the sweep whatever the rate), refused (shlo's one-line
reason), export_error, crash, timeout.  The rate is pass / every case JAX could export.

  tools/jax_sweep.py --suite back-compat --target interpreter --json bc.json
  tools/jax_sweep.py --suite harness --slice 40 --filter '^sin|^cos' --jobs 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from queue import Queue

from sweep_summary import summary

from shlo.ir.output import write_file
from shlo.jax import harness

NOT_COUNTED = ("export_error",)
EXPORT_S = 30.0  # the JAX child's time to export a case (and start)
KIND = {"harness": "harness", "back-compat": "back_compat"}


def _work(connection: Connection, target: str) -> None:
    """A worker's loop: (stem, check) in, the case's verdict out."""
    while True:
        try:
            stem, check = connection.recv()
        except EOFError:
            return
        connection.send(harness.judge(Path(stem), target, check))


class Worker:
    """A worker process, started again after a crash or a timeout."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._start()

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_work, args=(theirs, self.target), daemon=True)
        self.process.start()

    def judge(self, stem: Path, check: str, timeout: float) -> dict[str, str]:
        self.connection.send((str(stem), check))
        try:
            if self.connection.poll(timeout):
                verdict: dict[str, str] = self.connection.recv()
                return verdict
            status = "timeout"
        except (EOFError, ConnectionError):
            status = "crash"
        self.process.kill()
        self.process.join()
        code = self.process.exitcode
        self._start()
        return {"status": status, "detail": f"worker exit code {code} after {timeout:.0f} s"}


def _check(suite: str, name: str) -> str:
    """How a case's outputs are held to XLA's: eigh's and svd's back-compatibility sets as a
    whole (their vectors are unique only up to a basis), everything else value by value."""
    family = name.split("_")[1] if suite == "back-compat" else ""
    return family if family in harness.CHECKS else "values"


def names(suite: str) -> list[str]:
    """Every case of the suite, in JAX's order (asked of the JAX child)."""
    command = [sys.executable, "-m", "shlo.jax.harness_child", "--list", KIND[suite]]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"jax_sweep: JAX could not list the {suite} cases: {last}")
    return done.stdout.split()


def _run(args: argparse.Namespace, chosen: list[str], folder: Path) -> list[dict]:
    cases = [{"kind": KIND[args.suite], "name": name} for name in chosen]
    answers = harness.export_cases(cases, folder, timeout=EXPORT_S * (1 + len(cases)))
    workers: Queue[Worker] = Queue()
    for _ in range(args.jobs):
        workers.put(Worker(args.target))

    def one(index: int) -> dict:
        name, answer = chosen[index], answers[index]
        if "export_error" in answer:
            return {
                "name": name,
                "entry": name,
                "status": "export_error",
                "detail": answer["export_error"],
            }
        worker = workers.get()
        try:
            verdict = worker.judge(folder / str(index), _check(args.suite, name), args.timeout)
            return {"name": name, "entry": name, **verdict}
        finally:
            workers.put(worker)

    with ThreadPoolExecutor(args.jobs) as pool:
        return list(pool.map(one, range(len(chosen))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=KIND, default="harness")
    parser.add_argument("--target", choices=harness.TARGETS, default="llvm-cpu")
    parser.add_argument("--filter", help="a regular expression the case's name must match")
    parser.add_argument("--slice", type=int, default=1, help="every N-th case")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a case may take")
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
