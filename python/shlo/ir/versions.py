"""Versions of shlo and the wheels it drives, read without loading any binding.

`shlo-opt --version` must start as fast as a native tool, so package versions come from the
installed `*.dist-info` folder names and the StableHLO version (which needs the bindings) is
computed once per torch-mlir version and cached.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from collections.abc import Callable

from shlo.errors import OutputError
from shlo.ir.output import write_file
from shlo.settings import VERSION, cache_dir

_PACKAGES = {
    "torch_mlir": "torch-mlir",
    "iree_base_compiler": "IREE compiler",
    "iree_base_runtime": "IREE runtime",
}
_SEAL = b"\nshlo-cache-sha256:"  # then the hex digest of the entry's contents before it


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
    """`compute()`, stored per shlo and wheel versions so later runs skip the work; an entry
    damaged since it was stored is removed and computed anew, with one line naming it."""
    key = "-".join([VERSION, *sorted(package_versions().values())])
    path = os.path.join(cache_dir(), f"{kind}-{key}.sealed")
    try:
        with open(path, "rb") as cached:
            return unsealed(cached.read()).decode()
    except OSError:
        pass
    except ValueError as damage:  # UnicodeDecodeError included
        print(f"shlo: the cached {kind} {path} is damaged ({damage}); removed it, computing it "
              "anew", file=sys.stderr)  # fmt: skip
        with contextlib.suppress(OSError):
            os.unlink(path)
    value = compute()
    with contextlib.suppress(OSError, OutputError):  # a cache it cannot write only costs time
        os.makedirs(cache_dir(), exist_ok=True)
        write_file(path, sealed(value.encode()))
    return value


def sealed(data: bytes) -> bytes:
    """`data` as a cache entry stores it: followed by its checksum, so that damage done to the
    file since (a full disk, a stray write) is found when it is read back."""
    return data + _SEAL + hashlib.sha256(data).hexdigest().encode()


def unsealed(entry: bytes) -> bytes:
    """What a cache entry holds, once its checksum holds (ValueError: damaged)."""
    data, seal, recorded = entry.rpartition(_SEAL)
    if not seal:
        raise ValueError("no checksum: truncated, or not written by this shlo")
    if hashlib.sha256(data).hexdigest().encode() != recorded:
        raise ValueError("its checksum differs")
    return data


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
