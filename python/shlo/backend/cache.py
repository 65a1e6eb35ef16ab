"""Compiled `.vmfb`s kept in memory and on disk, keyed by the module and the compile command.

A `torch.compile` graph or a model compiled again (in this process or the next) skips
iree-compile.  The key is a SHA-256 of the module's bytecode, the iree-compile flags, the
compiler's version and, for `target-cpu=host`, the host CPU; any change compiles anew.
Location: `shlo.settings.cache_dir()`; entries are written atomically (a crash never leaves a
truncated `.vmfb` behind) and sealed with the SHA-256 of their bytes (`shlo.ir.versions.sealed`):
an entry damaged since (a full disk, a stray write) is removed and compiled anew, with one line
naming it, rather than failing to load at every call.  The folder holds at most
`$SHLO_CACHE_MAX_MB` megabytes (default `MAX_MEGABYTES`) of `.vmfb`s: the least recently used
go first.
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path

from shlo.errors import OutputError
from shlo.ir.output import atomic_path
from shlo.ir.versions import sealed, unsealed
from shlo.runtime.untrusted import read_bytes
from shlo.settings import cache_dir

_IN_MEMORY = 16  # entries
MAX_MEGABYTES = 1024


@dataclass
class Stats:
    """How the cache answered in this process (tests and benchmarks read it)."""

    memory_hits: int = 0
    disk_hits: int = 0
    misses: int = 0


STATS = Stats()
_memory: OrderedDict[str, bytes] = OrderedDict()


def directory() -> Path:
    return Path(cache_dir())


@cache
def _host_cpu() -> str:
    """What `--iree-llvmcpu-target-cpu=host` resolves to depends on the machine."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor() or platform.machine()
    wanted = ("model name", "flags", "Features")
    return "\n".join(dict.fromkeys(line for line in lines if line.startswith(wanted)))


def key(module_bytecode: bytes, flags: list[str]) -> str:
    digest = hashlib.sha256()
    digest.update(f"shlo-cache-2\0iree {version('iree-base-compiler')}\0".encode())
    digest.update("\0".join(flags).encode())
    if any(flag.endswith("target-cpu=host") for flag in flags):
        digest.update(_host_cpu().encode())
    digest.update(b"\0" + module_bytecode)
    return digest.hexdigest()


def lookup(entry: str) -> bytes | None:
    path = directory() / f"{entry}.vmfb"
    if entry in _memory:
        _memory.move_to_end(entry)
        STATS.memory_hits += 1
        _touch(path)
        return _memory[entry]
    vmfb = _read(path) if os.path.lexists(path) else None
    if vmfb is None:
        STATS.misses += 1
        return None
    _touch(path)
    STATS.disk_hits += 1
    _remember(entry, vmfb)
    return vmfb


def _read(path: Path) -> bytes | None:
    """The compile an entry holds; None, with one line saying so and the entry removed, when it
    is damaged, no regular file (a FIFO would block, /dev/zero would fill the memory) or leads
    out of the cache folder."""
    try:
        return unsealed(read_bytes(path, inside=path.parent))
    except ValueError as damage:  # an UntrustedFileError too: it names the path
        reason = str(damage).removeprefix(f"{path}: ")
    try:
        path.unlink()  # a symlink: the link, never what it leads to
        done = "removed it"
    except OSError:
        done = "left it there"
    print(f"shlo: the cached compile {path} is damaged ({reason}); {done}, compiling anew",
          file=sys.stderr)  # fmt: skip
    return None


def store(entry: str, vmfb: bytes) -> None:
    """Keep `vmfb`; a cache directory that cannot be written is skipped, never an error."""
    _remember(entry, vmfb)
    folder = directory()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_path(folder / f"{entry}.vmfb") as scratch:
            scratch.write_bytes(sealed(vmfb))
        _shrink(folder, max_bytes())
    except (OSError, OutputError):
        return


def _touch(path: Path) -> None:
    """Mark as used now: the last entry to go when the folder is over its size."""
    try:
        os.utime(path)
    except OSError:
        return


def max_bytes() -> int:
    try:
        return int(float(os.environ.get("SHLO_CACHE_MAX_MB", MAX_MEGABYTES)) * 2**20)
    except ValueError:
        return MAX_MEGABYTES * 2**20


def _shrink(folder: Path, limit: int) -> None:
    """Remove the least recently used entries until the rest fit in `limit` bytes."""
    entries = []
    for path in folder.glob("*.vmfb"):
        try:
            status = path.stat()
        except OSError:  # another process removed it
            continue
        entries.append((status.st_mtime, status.st_size, path))
    total = 0
    for _, size, path in sorted(entries, key=lambda entry: entry[0], reverse=True):
        total += size
        if total > limit:
            path.unlink(missing_ok=True)


def _remember(entry: str, vmfb: bytes) -> None:
    _memory[entry] = vmfb
    _memory.move_to_end(entry)
    while len(_memory) > _IN_MEMORY:
        _memory.popitem(last=False)
