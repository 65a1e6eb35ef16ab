"""Untrusted MLIR read without ending the process that reads it: bytecode first in a child
process, where a native crash cannot end ours, and text only as deeply nested as MLIR's
recursive parser reads without overflowing its stack (`check_nesting`).

MLIR's bytecode reader aborts or segfaults on some damaged files (every tool built on it does,
torch-mlir-opt and iree-opt included), corrupts the heap on others (the process aborts later,
at a free: the child frees everything before it exits, so that shows there too), and loops
forever on a few.  Before a command parses bytecode in its own process, a child parses it, with
the same bindings; if the child dies on a signal or is still reading after `READ_SECONDS`, the
command reports that as a clear error with a command that reproduces it, instead of dying or
hanging without a word.  A portable artifact is read in the child as the caller reads it, VHLO
converted to StableHLO: a damaged artifact can parse and still crash in that conversion.  Parse
errors that MLIR reports normally are left to the caller, which prints them with their locations.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys

from shlo.errors import UsageError
from shlo.lifetime import die_with_parent

# Far beyond what reading takes (the weights in bytecode are copied, not decoded), so that only
# a reader caught in a loop reaches it.
READ_SECONDS = 60


def check_bytecode(
    data: bytes, name: str, world: str = "stablehlo", *, portable: bool = False
) -> None:
    """Raise UsageError when parsing `data` with `world`'s bindings (with `portable`: reading
    it as a portable artifact, VHLO converted to StableHLO, where a parse that holds can still
    crash) kills the process that parses it, or does not end."""
    shown = name if name != "<stdin>" else "the input"
    tool = f"shlo-translate --deserialize {name}" if portable else f"torch-mlir-opt {name}"
    reproduce = f"the file is damaged or not MLIR bytecode (reproduce with: {tool})"
    command = [sys.executable, "-m", "shlo.ir.bytecode_guard", str(os.getpid()), world]
    command += ["portable"] if portable else []
    reader = "the portable artifact reader" if portable else "MLIR's bytecode reader"
    try:
        done = subprocess.run(command, input=data, capture_output=True, timeout=READ_SECONDS)
    except subprocess.TimeoutExpired:
        raise UsageError(
            f"{shown}: {reader} was still reading this input after {READ_SECONDS} s; {reproduce}"
        ) from None
    if done.returncode >= 0:
        return
    try:
        signame = signal.Signals(-done.returncode).name
    except ValueError:
        signame = f"signal {-done.returncode}"
    said = done.stderr.decode(errors="replace").strip().splitlines()
    detail = f": {said[-1]}" if said else ""
    raise UsageError(f"{shown}: {reader} crashed on this input ({signame}{detail}); {reproduce}")


# Nesting MLIR's text parser reads in any thread (it overflows an 8 MiB stack at a few
# thousand nested regions), far beyond what real IR nests.
MAX_NESTING = 1000
_OPENERS = b"{([<"
_CLOSERS = b"})]>"
# What tells brackets in code from those in strings and comments (MLIR's strings and comments
# end at the line's end), once escaped quotes and backslashes are gone.
_DROP = bytes(sorted(set(range(256)) - set(b'{([<})]>"/\n')))
_STRINGS_AND_COMMENTS = re.compile(rb'"[^"\n]*"|//[^\n]*')


def check_nesting(data: bytes, name: str) -> None:
    """Raise UsageError when MLIR text `data` nests regions, brackets or types deeper than
    `MAX_NESTING`: a stack overflow in MLIR's parser would end this process without a word.
    Every step is a pass of C over the bytes: a model's text can be gigabytes."""
    plain = data.replace(b"->", b"")
    if b"\\" in plain:
        plain = plain.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = plain.translate(None, _DROP)
    if sum(kept.count(opener) for opener in _OPENERS) <= MAX_NESTING:
        return
    import numpy as np  # only for text with many brackets: numpy costs shlo-opt's start-up

    steps = np.zeros(256, np.int64)
    steps[list(_OPENERS)], steps[list(_CLOSERS)] = 1, -1
    code = _STRINGS_AND_COMMENTS.sub(b"", kept)
    level = np.cumsum(steps[np.frombuffer(code, np.uint8)])
    depth = level - np.minimum.accumulate(np.minimum(level, 0))  # never below 0 on the way
    if int(depth.max(initial=0)) > MAX_NESTING:
        raise UsageError(
            f"{name}: nested more than {MAX_NESTING} deep (regions, brackets or types); "
            "MLIR's parser would overflow its stack, so it is not parsed"
        )


def _parse_stdin(parent: int, world: str, portable: bool) -> int:
    from shlo.ir.worlds import ContextPolicy, get_world

    die_with_parent(parent)
    chosen = get_world(world)
    context = chosen.make_context(ContextPolicy(allow_unregistered_dialects=True, threading=False))
    # A parse error that MLIR reports is the caller's to print, with its location.
    with contextlib.suppress(Exception):
        if portable:
            from shlo.ir.stablehlo import deserialize

            deserialize(context, sys.stdin.buffer.read())
        else:
            chosen.ir.Module.parse(sys.stdin.buffer.read(), context)
    return 0


if __name__ == "__main__":
    sys.exit(_parse_stdin(int(sys.argv[1]), sys.argv[2], sys.argv[3:] == ["portable"]))
