"""A command that loads a user's `.vmfb` runs in a forked child, where a native crash is one line.

IREE verifies a module's flatbuffer, but not the executables inside it: a damaged `.vmfb` can
end the process with SIGSEGV while it loads (the embedded ELF) or runs.  `shlo run` and
`shlo bench` therefore do their whole work in a child forked before any IREE runtime thread
exists; the child writes its outputs itself (atomically), and when it dies on a signal the
parent says so, naming the file, and exits 1.  Ctrl-C reaches both; the parent passes on the
child's 130.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

from shlo.lifetime import die_with_parent


def run_isolated(command: Callable[[], int], prog: str, what: str) -> int:
    """`command()`'s status, run in a forked child (it must report its own errors); a crash
    is reported as `prog: ... crashed ... on what` and status 1."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        die_with_parent(parent)
        status = 1
        try:
            status = command()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(status)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        signal.signal(signal.SIGINT, previous)
    if os.WIFSIGNALED(status):
        print(
            f"{prog}: the IREE runtime crashed ({signal_text(os.WTERMSIG(status))}) on {what}; "
            "it is damaged, or not a module this IREE runtime loads",
            file=sys.stderr,
        )
        return 1
    return os.waitstatus_to_exitcode(status)


def signal_text(number: int) -> str:
    """`SIGSEGV, segmentation fault`, as the C library names it."""
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    described = signal.strsignal(number)
    return f"{name}, {described.lower()}" if described else name
