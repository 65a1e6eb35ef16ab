"""PyTorch's own OpInfo and ModuleInfo databases as a conformance target for `compile_torch`.

Every sample of every op (`op_db`) and module (`module_db`) in the chosen dtypes is compiled
and run, and compared with eager: structure, dtype, shape, values (NaN and infinity positions
exact, integers exact, tolerances by dtype).  `--special-values` puts NaN, infinities, -0.0,
the extremes and subnormals into float inputs and the integer extremes into integer ones.
Eager runs as IREE's CPU runtime does, subnormals flushed to zero.  Indices that differ
where the values they pick tie (sort, topk, argmax) pass.  Samples that eager or torch.export
cannot run (a Python error, or the process dying in eager) are counted apart (`eager_error`,
`export_error`); random ops (eager changes with the seed) are checked for dtype, shape and
distribution against eager's draws under several seeds (`random`); values that vary with no
random op drawn (`empty` and its kin: uninitialized memory) are checked for dtype and shape.
Where a float32, float16 or bfloat16 output of eager is off the same sample computed in
float64 (its partial sums overflowed), the float64 result passes too, and an overflow of
another order is `order_dependent`, not passing.  The rate is pass / the rest.  The samples
of each (entry, dtype) run in a worker process, up to `CHUNK` to a compile, so a crash or a
timeout loses only that chunk.

  tools/torch_sweep.py --dtypes float32 --json sweep.json        # every op in float32
  tools/torch_sweep.py --modules --special-values --filter Pool   # pooling modules
  tools/torch_sweep.py --compare old.json --json new.json         # what changed
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from queue import Queue
from typing import Any

import torch_sweep_cases as cases
from sweep_summary import summary
from tqdm import tqdm

from shlo.ir.output import write_file
from shlo.runtime.isolated import signal_text

NOT_COUNTED = ("eager_error", "export_error", "random")
CHUNK = 64  # samples compiled as one module


def _work(connection: Connection, target: str, special: bool) -> None:
    """A worker's loop: (key, dtype, only) in; out, ("eager", sample) as eager starts on a
    sample, ("shlo", None) as shlo's part starts, and ("done", verdicts) for the case.  The
    worker leads a process group of its own, so that stopping it stops the compilers it ran."""
    os.setpgid(0, 0)
    while True:
        try:
            key, dtype, only = connection.recv()
        except EOFError:  # the sweep is over
            return
        calls = cases.samples(key, cases.DTYPES[dtype])
        numbered = [(i, c) for i, c in enumerate(calls) if only is None or i in only]
        if special:
            numbered = [(i, cases.with_special_values(c, i)) for i, c in numbered]
        starting = functools.partial(_tell, connection, [i for i, _ in numbered])
        verdicts = cases.judge_all([c for _, c in numbered], target, starting)
        done = [{"sample": i, **v} for (i, _), v in zip(numbered, verdicts, strict=True)]
        connection.send(("done", done))


def _tell(connection: Connection, numbers: list[int], index: int | None) -> None:
    """Which part runs now: eager on sample `numbers[index]`, or shlo's (None)."""
    connection.send(("shlo", None) if index is None else ("eager", numbers[index]))


# Set once the sweep is interrupted: a worker that dies then is not started again.
_stopping = threading.Event()


class Interrupted(Exception):
    """The sweep was interrupted while this case ran."""


class Worker:
    """A worker process that is started again after a crash or a timeout."""

    def __init__(self, target: str, special: bool) -> None:
        self.args = (target, special)
        self._start()

    def _start(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_work, args=(theirs, *self.args), daemon=True)
        self.process.start()

    def stop(self, wait: float = 0.0) -> None:
        """Kill the worker (given `wait` seconds to end on its own once told there is no more
        work) and whatever it started: an `iree-compile` outlives a worker killed alone, and
        takes a core for as long as it runs."""
        if wait:
            self.connection.close()
            self.process.join(wait)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.process.is_alive():  # not yet its group's leader
            self.process.kill()
        self.process.join()

    def run(self, key: str, dtype: str, only: list[int] | None, timeout: float) -> list[dict]:
        """The verdicts, or one for the whole run (no sample): `timeout`, `crash`, or
        `eager_error` when the process died while eager ran a sample (SIGFPE on an integer
        division)."""
        self.connection.send((key, dtype, only))
        status, phase = "timeout", ("shlo", None)
        deadline = time.monotonic() + timeout
        try:
            while self.connection.poll(max(0.0, deadline - time.monotonic())):
                phase = self.connection.recv()
                if phase[0] == "done":
                    return phase[1]
        except (EOFError, ConnectionError):
            status = "crash"
            self.process.join(5)  # its own exit status, not the kill below
        if not self.process.is_alive() and status == "timeout":
            status = "crash"
        self.stop()
        if _stopping.is_set():
            raise Interrupted
        code = self.process.exitcode
        self._start()
        ended = f"exit code {code}" if code is None or code >= 0 else signal_text(-code)
        if status == "crash" and phase[0] == "eager":
            status, ended = "eager_error", f"eager on sample {phase[1]}: {ended}"
        return [{"sample": None, "status": status, "detail": f"worker {ended}"}]


def _cases(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Every (entry, dtype) chosen, in a fixed order, every `--slice`-th of them."""
    pattern = re.compile(args.filter or "")
    kinds = ("module:",) if args.modules else ("op:",)
    chosen = []
    for key in sorted(cases.entries()):
        if key.startswith(kinds) and pattern.search(key):
            chosen += [(key, d) for d in args.dtypes if d in cases.supported_dtypes(key)]
    return chosen[:: args.slice]


def _run(args: argparse.Namespace, todo: list[tuple[str, str]]) -> list[dict]:
    """Run the cases on `--jobs` workers; a case whose worker died is run sample by sample.
    Interrupted (Ctrl-C, SIGTERM), the cases not started are dropped and every worker is
    stopped with what it started."""
    everyone = [Worker(args.target, args.special_values) for _ in range(args.jobs)]
    workers: Queue[Worker] = Queue()
    for worker in everyone:
        workers.put(worker)

    def one(case: tuple[str, str]) -> list[dict]:
        worker = workers.get()
        try:
            return list(_attempts(worker, *case, args.timeout))
        finally:
            workers.put(worker)

    results = []
    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            try:
                for case, verdicts in zip(todo, pool.map(one, todo), strict=True):
                    results += [{"entry": case[0], "dtype": case[1], **v} for v in verdicts]
                    if args.progress:
                        args.progress.update()
            except BaseException:
                _stopping.set()
                pool.shutdown(wait=False, cancel_futures=True)
                for worker in everyone:
                    worker.stop()
                raise
    finally:
        for worker in everyone:
            worker.stop(wait=10.0)
    return results


def _terminated(signal_number: int, frame: Any) -> None:
    """SIGTERM as an exit, so that the sweep stops its workers first."""
    raise SystemExit(128 + signal_number)


def _attempts(worker: Worker, key: str, dtype: str, timeout: float) -> Iterator[dict]:
    """The case's verdicts, `CHUNK` samples to a compile (a case of a thousand samples is one
    module too slow to compile); after a crash, each sample of the chunk alone, to pin it to
    its samples (a timeout is not retried sample by sample: it would cost a timeout a
    sample)."""
    count = len(cases.samples(key, cases.DTYPES[dtype]))
    for start in range(0, count, CHUNK):
        chunk = list(range(start, min(count, start + CHUNK)))
        verdicts = worker.run(key, dtype, chunk, timeout)
        if verdicts[0]["sample"] is not None:
            yield from verdicts
        elif verdicts[0]["status"] == "timeout":
            yield from ({**verdicts[0], "sample": index} for index in chunk)
        else:
            for index in chunk:
                (alone,) = worker.run(key, dtype, [index], timeout)
                yield {**alone, "sample": index}


def _by_entry(results: list[dict]) -> list[str]:
    """A line for each entry with a sample that neither passed nor is counted apart."""
    failing: dict[str, Counter] = {}
    for r in results:
        if r["status"] not in ("pass", *NOT_COUNTED):
            failing.setdefault(f"{r['entry']} {r['dtype']}", Counter())[r["status"]] += 1
    lines = []
    for name, counts in sorted(failing.items()):
        first = next(
            r.get("detail", "")
            for r in results
            if f"{r['entry']} {r['dtype']}" == name and r["status"] in counts
        )
        lines.append(f"  {name}: {dict(counts)}: {first[:160]}")
    return lines


def _compare(old: Path, results: list[dict]) -> list[str]:
    def keyed(rows: list[dict]) -> dict[tuple, str]:
        return {(r["entry"], r["dtype"], r["sample"]): r["status"] for r in rows}

    before, after = keyed(json.loads(old.read_text())["results"]), keyed(results)
    return [
        f"  {' '.join(map(str, k))}: {before[k]} -> {after[k]}"
        for k in sorted(before.keys() & after.keys(), key=str)
        if before[k] != after[k]
    ]


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminated)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modules", action="store_true", help="ModuleInfo instead of OpInfo")
    parser.add_argument("--filter", help="a regular expression the entry's key must match")
    parser.add_argument("--dtypes", default="float32", type=lambda s: s.split(","))
    parser.add_argument("--special-values", action="store_true")
    parser.add_argument("--target", default="llvm-cpu", choices=("llvm-cpu", "vulkan"))
    parser.add_argument("--slice", type=int, default=1, help="every N-th (entry, dtype)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a case may take")
    parser.add_argument("--json", type=Path, help="write every sample's verdict here")
    parser.add_argument("--compare", type=Path, help="list changes against an earlier --json")
    parser.add_argument("--floor", type=float, help="fail below this pass rate (0-1)")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    if unknown := set(args.dtypes) - set(cases.DTYPES):
        parser.error(f"unknown dtypes {sorted(unknown)}; known: {', '.join(cases.DTYPES)}")
    todo = _cases(args)
    started = time.monotonic()
    args.progress = None if args.quiet else tqdm(total=len(todo), file=sys.stderr)
    results = _run(args, todo)
    line, rate = summary(results, NOT_COUNTED, "samples")
    if not args.quiet:
        print("\n".join(_by_entry(results)))
    if args.compare:
        print("\n".join(_compare(args.compare, results)) or "no changes")
    if args.json:
        config = {k: v for k, v in vars(args).items() if k not in ("progress", "json", "compare")}
        report = {"config": {k: str(v) for k, v in config.items()}, "results": results}
        write_file(args.json, json.dumps(report, indent=1).encode())
    kind = "ModuleInfo" if args.modules else "OpInfo"
    print(f"{kind} sweep ({len(todo)} cases, {time.monotonic() - started:.0f} s): {line}")
    mismatches = sum(r["status"] == "mismatch" for r in results)
    failed = mismatches or (args.floor is not None and rate < args.floor)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
