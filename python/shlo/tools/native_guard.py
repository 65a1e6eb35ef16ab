"""A native crash is reported, not silent: a command's work items run in a forked child.

MLIR's parser, verifiers and passes are native code; some of them divide by zero or abort on
inputs they should reject (every tool built on them dies there too).  Run in-process, such a
crash ends shlo-opt with exit 136 and not a word.  Here the items (the `--split-input-file`
chunks, or the one whole input) run in a child forked from this process, which tells the parent
which item it is on.  When the child dies on a signal, the parent names the signal and the item
in one line, with a rerun command, and a new child goes on with the items after it, as if that
item had failed: exit 1, the other items' results intact.

The fork happens before any MLIR context has started a thread, and the child leaves with
`os._exit`, so the parent's open output (an `AtomicOutput`) is committed or removed only by the
parent.  Ctrl-C reaches both processes; the parent ignores it and passes on the child's 130.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

from shlo.ir.source import Source
from shlo.lifetime import die_with_parent, end_child
from shlo.runtime.isolated import signal_text
from shlo.tools.reporting import run_reporting

_INDEX_BYTES = 4


def run_guarded(
    prog: str,
    chunks: list[Source],
    step: Callable[[int], bool],
    argv: list[str],
    input_path: str,
    *,
    split: bool,
    isolate: bool = True,
) -> int:
    """Run `step(0) .. step(len(chunks) - 1)` in forked children: 0 when every step returned
    True, 1 when one failed or crashed (reported with a rerun command: `argv` less the input
    `input_path`, the output and splitting), else the child's own status (130 after Ctrl-C).
    Without `isolate`, the steps run in this process (a caller that is not the process's
    command, whose threads a fork would not copy)."""
    count = len(chunks)
    if not isolate:
        return 0 if all([step(index) for index in range(count)]) else 1
    ok, start = True, 0
    while start < count:
        reached, status = _child_run(prog, start, count, step)
        if os.WIFSIGNALED(status):
            why = signal_text(os.WTERMSIG(status))
            _report_crash(prog, chunks[reached], split, why, _rerun_flags(argv, input_path))
            ok, start = False, reached + 1
            continue
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            return code
        ok &= code == 0
        break
    return 0 if ok else 1


def _report_crash(prog: str, chunk: Source, split: bool, why: str, flags: list[str]) -> None:
    """One line for a buffer on which native code died: where, the signal, a rerun command
    (the buffer is kept in the reproducer folder)."""
    import shlex

    from shlo.pipeline.repro import write_input

    where = f"{chunk.name}:{chunk.first_line}:1" if split else chunk.name
    what = "the input that starts here; the other inputs ran" if split else "this input"
    kept = write_input(chunk.padded_text().encode() if split else chunk.data)
    command = shlex.join([prog, kept, *flags])
    print(
        f"{where}: error: {prog} crashed in MLIR's native code ({why}) on {what}; "
        f"reproduce with: {command}",
        file=sys.stderr,
    )


def _rerun_flags(argv: list[str], input_path: str) -> list[str]:
    """The command line less the input, the output and splitting: what reruns one buffer."""
    flags, skip_next, input_seen = [], False, False
    for arg in argv:
        name = arg.lstrip("-").partition("=")[0]
        if skip_next:
            skip_next = False
        elif arg in ("-o", "--output"):
            skip_next = True
        elif arg == input_path and not input_seen:
            input_seen = True
        elif name not in ("o", "output", "split-input-file", "input-split-marker"):
            flags.append(arg)
    return flags


def _child_run(prog: str, start: int, count: int, step: Callable[[int], bool]) -> tuple[int, int]:
    """Fork a child for steps `start..`; returns the last step it began and its wait status."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child
        die_with_parent(parent)
        os.close(read_end)
        end_child(lambda: run_reporting(prog, lambda: _steps(start, count, step, write_end)))
    os.close(write_end)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        reached = _last_index(read_end, start)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(read_end)
        signal.signal(signal.SIGINT, previous)
    return reached, status


def _steps(start: int, count: int, step: Callable[[int], bool], progress: int) -> int:
    ok = True
    for index in range(start, count):
        os.write(progress, index.to_bytes(_INDEX_BYTES, "little"))
        ok &= step(index)
        sys.stdout.flush()
        sys.stderr.flush()
    return 0 if ok else 1


def _last_index(read_end: int, start: int) -> int:
    """The last index the child announced before it ended (its pipe reads empty)."""
    reached, pending = start, b""
    while chunk := os.read(read_end, 4096):
        pending += chunk
        whole = len(pending) - len(pending) % _INDEX_BYTES
        if whole:
            reached = int.from_bytes(pending[whole - _INDEX_BYTES : whole], "little")
            pending = pending[whole:]
    return reached
