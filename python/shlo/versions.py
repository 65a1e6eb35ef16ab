"""Versions of shlo and the wheels it drives, read without loading any binding.

`shlo-opt --version` must start as fast as a native tool, so package versions come from the
installed `*.dist-info` folder names and the StableHLO version (which needs the bindings) is
computed once per torch-mlir version and cached.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import shlo

_PACKAGES = {"torch_mlir": "torch-mlir", "iree_base_compiler": "IREE compiler",
             "iree_base_runtime": "IREE runtime"}
_DIST_INFO = re.compile(r"^([A-Za-z0-9_.]+)-([^-]+)\.dist-info$")


def package_versions() -> dict[str, str]:
    """{display name: version} for the wheels shlo is built on that are installed."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            match = _DIST_INFO.match(name)
            if match and match.group(1).lower() in _PACKAGES:
                found.setdefault(_PACKAGES[match.group(1).lower()], match.group(2))
    return found


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "shlo"


def cached_json(kind: str, compute: Callable[[], object]) -> object:
    """`compute()`, stored per shlo and wheel versions so later runs skip the work."""
    key = "-".join([shlo.__version__, *sorted(package_versions().values())])
    path = cache_dir() / f"{kind}-{key}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        pass
    value = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(f".{os.getpid()}.tmp")
    scratch.write_text(json.dumps(value))
    os.replace(scratch, path)
    return value


def _stablehlo_version() -> str:
    from shlo.stablehlo_world import stablehlo_version

    return stablehlo_version()


def version_text() -> str:
    """What `--version` prints: shlo, then each wheel (StableHLO's version beside torch-mlir's)."""
    lines = [f"shlo {shlo.__version__}"]
    for name, version in package_versions().items():
        extra = f" (StableHLO {cached_json('stablehlo-version', _stablehlo_version)})" \
            if name == "torch-mlir" else ""
        lines.append(f"  {name} {version}{extra}")
    return "\n".join(lines) + "\n"
