"""How every shlo command ends: its result, or one clear line and exit 1, never a traceback.

`ShloError` is the base of every error meant for the user; an `OSError` is a file the user
named that cannot be read or written; Ctrl-C exits 130 as a shell expects; a closed stdout
(`| head`) ends quietly.  Anything else is a bug in shlo: it is named in one line, with the
way to see the traceback (`SHLO_TRACEBACK=1`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from shlo.errors import ShloError


def run_reporting(prog: str, command: Callable[[], int]) -> int:
    """Run `command`; report its failure as `prog: message` on stderr and return the status."""
    try:
        return command()
    except ShloError as error:
        print(error if error.located else f"{prog}: {error}", file=sys.stderr)
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"{prog}: {where}{error.strerror or error}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        if os.environ.get("SHLO_TRACEBACK"):
            raise
        print(
            f"{prog}: internal error: {type(error).__name__}: {error} "
            "(a bug in shlo; rerun with SHLO_TRACEBACK=1 to see where, and please report it)",
            file=sys.stderr,
        )
    return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that Python's exit-time flush of a closed pipe is quiet."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
