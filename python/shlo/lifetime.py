"""Child processes that end with their parent.

shlo runs native code in children (the interpreter, each input buffer of shlo-opt).  Killed
with SIGTERM or SIGKILL, the parent cleans nothing up, and a child interpreting an endless loop
went on alone for an hour, on both cores.  Linux's parent-death signal ends it instead.
"""

from __future__ import annotations

import ctypes
import os
import signal

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
