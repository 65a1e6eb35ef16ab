"""`--json FILE` for the `shlo` commands: one JSON document, written atomically (`-`: stdout).

When the JSON goes to standard output, it is all that goes there: the human summary moves to
stderr (`human_output`), so that `shlo run ... --json - | jq` reads a document and nothing else.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from typing import Any

from shlo.ir.output import resolve, write_file


def write_json(path: str, payload: dict[str, Any]) -> None:
    write_file(path, (json.dumps(payload, indent=2, default=str) + "\n").encode())


def goes_to_stdout(path: str | None) -> bool:
    """Whether `--json path` writes to this process's standard output (`-`, `/dev/stdout`)."""
    if not path:
        return False
    return path == "-" or resolve(path).descriptor == 1


@contextmanager
def human_output(json_path: str | None) -> Iterator[None]:
    """Within the block, `print` goes to stderr when the JSON takes stdout."""
    if not goes_to_stdout(json_path):
        yield
        return
    with redirect_stdout(sys.stderr):
        yield
