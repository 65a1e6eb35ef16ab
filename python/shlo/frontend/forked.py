"""torch-mlir's import and lowering run in a forked child, where a native crash is one error.

torch-mlir's FX importer and its pipelines are native code, and some graphs kill the process
that runs them (SIGSEGV, an assertion's abort).  `call_forked` runs such work in a child forked
from the caller, which tells the parent each stage as it starts (`announce`) and hands back a
picklable result (the lowered module as bytecode, never MLIR objects); when the child dies, the
caller gets a `Crashed` naming the stage it was in, and lives on.

A fork copies the caller's memory and no thread but the calling one, so the child has the
exported program without serializing it or its weights.  That is safe while the caller runs
no other Python thread that could hold a lock the child needs (`can_fork`).  The child runs
torch's kernels on one thread (torch's OpenMP pool is not copied) and leaves with `os._exit`,
so nothing of the caller's (its atexit handlers, its open outputs) runs twice.
"""

from __future__ import annotations

import faulthandler
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import Any, TypeVar, cast

import torch

from shlo.lifetime import die_with_parent
from shlo.runtime.isolated import signal_text

T = TypeVar("T")
_reporting: Connection | None = None  # the pipe to the parent, in a forked child only


@dataclass(frozen=True)
class Crashed:
    """The child died before handing back a result: how (`SIGSEGV, segmentation fault`, or
    an exit status) and the last stage it announced (None before the first)."""

    how: str
    stage: str | None


def can_fork() -> bool:
    """Whether this process may fork its work: on a system with fork, with no other thread
    but those known to hold nothing the child needs, and no XLA client running (JAX's native
    threads are invisible to `threading`; JAX itself warns that a fork may deadlock then)."""
    here = threading.current_thread()
    others = [t for t in threading.enumerate() if t is not here]
    return (
        hasattr(os, "fork")
        and all(type(t).__module__ in _HARMLESS for t in others)
        and not _xla_running()
    )


def _xla_running() -> bool:
    bridge = sys.modules.get("jax._src.xla_bridge")
    return bridge is not None and bool(bridge.backends_are_initialized())


# tqdm's monitor (torch.compile starts one, and it stays) wakes every few seconds to look at
# progress bars, which the child never draws.
_HARMLESS = ("tqdm._monitor",)


def announce(stage: str) -> None:
    """Tell the parent that `stage` starts (nothing when not in a forked child)."""
    if _reporting is not None:
        _reporting.send(("stage", stage))


def call_forked(work: Callable[[], T]) -> T | Crashed:
    """`work()`'s value, computed in a forked child; what it raised is raised here (a
    `ShloError` as it was); `Crashed` when the child died first."""
    reader, writer = Pipe(duplex=False)
    parent = os.getpid()
    for stream in (sys.stdout, sys.stderr):  # else the child could write their buffers again
        stream.flush()
    gc.freeze()  # the child's collections would touch, and so copy, every page of ours
    pid = os.fork()
    if pid == 0:
        reader.close()
        _child(work, writer, parent)
    gc.unfreeze()
    writer.close()
    stage, outcome = None, None
    try:
        while True:
            try:
                kind, value = reader.recv()
            except EOFError:
                break
            if kind == "stage":
                stage = value
            else:
                outcome = (kind, value)
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl-C: the child must not outlive the call
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        reader.close()
    if outcome is None:
        return Crashed(_ended(status), stage)
    kind, value = outcome
    if kind == "raised":
        raise value
    return cast(T, value)


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        return signal_text(os.WTERMSIG(status))
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _child(work: Callable[[], Any], writer: Connection, parent: int) -> None:
    """Run `work` and send its value, or what it raised, to the parent; then leave at once."""
    global _reporting
    status = 0
    try:
        die_with_parent(parent)
        faulthandler.disable()  # the parent reports the crash
        torch.set_num_threads(1)
        _reporting = writer
        try:
            outcome: tuple[str, Any] = ("value", work())
        except Exception as error:  # noqa: BLE001 (raised again in the parent)
            outcome = ("raised", error)
        try:
            writer.send(outcome)
        except Exception:  # noqa: BLE001 (it cannot be pickled: send what it says)
            value = outcome[1]
            writer.send(("raised", RuntimeError(f"{type(value).__name__}: {value}")))
    except BaseException:  # noqa: BLE001 (Ctrl-C: the parent is ending the call)
        status = 1
    finally:
        os._exit(status)
