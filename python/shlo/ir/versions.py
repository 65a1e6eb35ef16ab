"""Versions of shlo and the wheels it drives, read without loading any binding.

`shlo-opt --version` must start as fast as a native tool, so package versions come from the
installed `*.dist-info` folder names and the StableHLO version (which needs the bindings) is
computed once per torch-mlir version and cached.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable

from shlo.ir.output import OutputError, write_file
from shlo.settings import VERSION, cache_dir

_PACKAGES = {
    "torch_mlir": "torch-mlir",
    "iree_base_compiler": "IREE compiler",
    "iree_base_runtime": "IREE runtime",
}


def package_versions() -> dict[str, str]:
    """{display name: version} for the wheels shlo is built on that are installed."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            package, _, version = name.removesuffix(".dist-info").partition("-")
            if name.endswith(".dist-info") and package.lower() in _PACKAGES:
                found.setdefault(_PACKAGES[package.lower()], version)
    return found


def cached_text(kind: str, compute: Callable[[], str]) -> str:
    """`compute()`, stored per shlo and wheel versions so later runs skip the work."""
    key = "-".join([VERSION, *sorted(package_versions().values())])
    path = os.path.join(cache_dir(), f"{kind}-{key}")
    try:
        with open(path) as cached:
            return cached.read()
    except OSError:
        pass
    value = compute()
    with contextlib.suppress(OSError, OutputError):  # a cache it cannot write only costs time
        os.makedirs(cache_dir(), exist_ok=True)
        write_file(path, value.encode())
    return value


def _stablehlo_version() -> str:
    from shlo.ir.stablehlo import stablehlo_version

    return stablehlo_version()


def version_text() -> str:
    """What `--version` prints: shlo, then each wheel (StableHLO's version beside torch-mlir's)."""
    lines = [f"shlo {VERSION}"]
    for name, version in package_versions().items():
        extra = (
            f" (StableHLO {cached_text('stablehlo-version', _stablehlo_version)})"
            if name == "torch-mlir"
            else ""
        )
        lines.append(f"  {name} {version}{extra}")
    return "\n".join(lines) + "\n"
