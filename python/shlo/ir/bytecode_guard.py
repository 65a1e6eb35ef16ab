"""Untrusted MLIR bytecode read first in a child process, where a native crash cannot end ours.

MLIR's bytecode reader aborts or segfaults on some damaged files (every tool built on it does,
torch-mlir-opt and iree-opt included).  Before a command parses bytecode in its own process, a
child parses it; if the child dies on a signal, the command reports that as a clear error with
a command that reproduces it, instead of dying without a word.  Parse errors that MLIR reports
normally are left to the caller, which prints them with their locations.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys

from shlo.errors import ShloError


class BytecodeCrash(ShloError):
    """MLIR's bytecode reader crashed on the input."""


def check_bytecode(data: bytes, name: str) -> None:
    """Raise BytecodeCrash when parsing `data` kills the process that parses it."""
    done = subprocess.run(
        [sys.executable, "-m", "shlo.ir.bytecode_guard"],
        input=data,
        capture_output=True,
    )
    if done.returncode >= 0:
        return
    try:
        signame = signal.Signals(-done.returncode).name
    except ValueError:
        signame = f"signal {-done.returncode}"
    said = done.stderr.decode(errors="replace").strip().splitlines()
    detail = f": {said[-1]}" if said else ""
    shown = name if name != "<stdin>" else "the input"
    raise BytecodeCrash(
        f"{shown}: MLIR's bytecode reader crashed on this input ({signame}{detail}); "
        f"the file is damaged or not MLIR bytecode (reproduce with: torch-mlir-opt {name})"
    )


def _parse_stdin() -> int:
    from shlo.ir.stablehlo import ir, make_context
    from shlo.ir.worlds import ContextPolicy

    context = make_context(ContextPolicy(allow_unregistered_dialects=True, threading=False))
    # A parse error that MLIR reports is the caller's to print, with its location.
    with contextlib.suppress(Exception):
        ir.Module.parse(sys.stdin.buffer.read(), context)
    return 0


if __name__ == "__main__":
    sys.exit(_parse_stdin())
