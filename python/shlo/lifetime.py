"""Child processes that end with their parent, and end themselves the same way.

shlo runs native code in children (the interpreter, each input buffer of shlo-opt).  Killed
with SIGTERM or SIGKILL, the parent cleans nothing up, and a child interpreting an endless loop
went on alone for an hour, on both cores.  Linux's parent-death signal ends it instead.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import traceback
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Have this process killed when `parent` ends; end now if it already has.  A no-op where
    the C library has no `prctl` (not Linux)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)


def end_child(work: Callable[[], int]) -> None:
    """End a forked child with `work()`'s status: an error that got through (SHLO_TRACEBACK=1
    lets them) is printed as the child's last word and gives 1.  The streams are flushed and
    the child leaves by `os._exit`, never unwinding into its parent's code."""
    status = 1
    try:
        status = work()
    except Exception:  # noqa: BLE001 (anything left is the child's last word)
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
