"""shlo's version, and where it keeps what it computes once and reuses: compiled modules, pass
lists, versions.

`$SHLO_CACHE_DIR`, else `$XDG_CACHE_HOME/shlo`, else `~/.cache/shlo`; every cache reads this.
"""

from __future__ import annotations

import os

VERSION = "0.1.0"


def cache_dir() -> str:
    if configured := os.environ.get("SHLO_CACHE_DIR"):
        return configured
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shlo")
