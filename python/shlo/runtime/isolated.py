"""A user's `.vmfb` is loaded where a native crash is one line, not the end of the caller.

IREE verifies a module's flatbuffer, but not the executables inside it: a damaged `.vmfb` can
end the process with SIGSEGV while it loads (the embedded ELF), SIGILL or SIGSEGV when its
damaged code runs, or corrupt the heap so that the process aborts later.

  - `shlo run` and `shlo bench` do their whole work in a child forked before any IREE runtime
    thread exists (`run_isolated`); the child writes its outputs itself (atomically), and when
    it dies on a signal the parent says so, naming the file, and exits 1.  Ctrl-C reaches both;
    the parent passes on the child's 130, or kills a child stuck in native code and exits 130.
  - `LoadedModule` from Python first tries a module it did not compile itself in a spawned
    child (`try_in_child`, `shlo.runtime.trial`): a fork of the caller, whose threads (IREE's
    workers, torch's) are gone in the child, could deadlock there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from shlo.errors import RunError
from shlo.lifetime import die_with_parent, end_child

# A trial still running after this long is a big model (or a slow loop), not a crash: the
# caller loads the module itself without the trial's verdict.
TRIAL_SECONDS = 60
# How long a command's child has to end itself after Ctrl-C before it is killed.
_GRACE_SECONDS = 2.0


def run_isolated(command: Callable[[], int], prog: str, what: str) -> int:
    """`command()`'s status, run in a forked child (it must report its own errors); a crash
    is reported as `prog: ... crashed ... on what` and status 1."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        die_with_parent(parent)
        end_child(command)
    try:
        _, status = os.waitpid(pid, 0)
    except KeyboardInterrupt:
        ended = _after_interrupt(pid)
        if ended is None:
            print(f"{prog}: interrupted", file=sys.stderr)
            return 130
        status = ended
    if os.WIFSIGNALED(status):
        print(
            f"{prog}: the IREE runtime crashed ({signal_text(os.WTERMSIG(status))}) on {what}; "
            "it is damaged, or not a module this IREE runtime loads",
            file=sys.stderr,
        )
        return 1
    return os.waitstatus_to_exitcode(status)


def _after_interrupt(pid: int) -> int | None:
    """The child's wait status once Ctrl-C reached it too: it ends itself (130, having said
    so) within `_GRACE_SECONDS`, unless native code holds it (a dispatch of damaged code that
    never returns); then it is killed, and None returned."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C changes nothing
    try:
        deadline = time.monotonic() + _GRACE_SECONDS
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return None
    finally:
        signal.signal(signal.SIGINT, previous)


def try_in_child(vmfb: bytes, name: str, device: str, parameters: str | Path | None) -> None:
    """Raise RunError when loading `vmfb` on `device` (with the `parameters` archive) and calling
    its functions once kills a child process (`shlo.runtime.trial`), or when the module does not
    load there (the child's error: the caller does not try it again).  SIGKILL comes from
    outside (the kernel's out-of-memory killer), never from a damaged module: like a trial that
    outlasts `TRIAL_SECONDS`, it leaves the module to the caller's own load."""
    command = [sys.executable, "-m", "shlo.runtime.trial", str(os.getpid()), device]
    if parameters is not None:
        command.append(str(parameters))
    try:
        done = subprocess.run(command, input=vmfb, capture_output=True, timeout=TRIAL_SECONDS)
    except subprocess.TimeoutExpired:
        return
    if done.returncode < 0 and done.returncode != -signal.SIGKILL:
        raise RunError(
            f"{name}: the IREE runtime crashed ({signal_text(-done.returncode)}) loading or "
            "running it in a child process; it is damaged, or not a module this IREE runtime loads"
        )
    if done.returncode == 0 and (refused := done.stdout.decode(errors="replace").strip()):
        raise RunError(refused)


def signal_text(number: int) -> str:
    """`SIGSEGV, segmentation fault`, as the C library names it."""
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    described = signal.strsignal(number)
    return f"{name}, {described.lower()}" if described else name
