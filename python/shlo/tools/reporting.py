"""How every shlo command ends: its result, or one clear line and exit 1, never a traceback.

`ShloError` is the base of every error meant for the user; an `OSError` is a file the user
named that cannot be read or written; Ctrl-C exits 130 as a shell expects.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from shlo.errors import ShloError


def run_reporting(prog: str, command: Callable[[], int]) -> int:
    """Run `command`; report its failure as `prog: message` on stderr and return the status."""
    try:
        return command()
    except ShloError as error:
        print(f"{prog}: {error}", file=sys.stderr)
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"{prog}: {where}{error.strerror or error}", file=sys.stderr)
    except KeyboardInterrupt:
        return 130
    return 1
