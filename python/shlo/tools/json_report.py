"""`--json FILE` for the `shlo` commands: one JSON document, written atomically (`-`: stdout)."""

from __future__ import annotations

import json
from typing import Any

from shlo.ir.output import AtomicOutput


def write_json(path: str, payload: dict[str, Any]) -> None:
    with AtomicOutput(path) as out:
        out.stream.write((json.dumps(payload, indent=2, default=str) + "\n").encode())
        out.commit()
