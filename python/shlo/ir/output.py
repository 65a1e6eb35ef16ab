"""Atomic output files: a failed run never leaves a half-written or clobbered `-o` file."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from shlo.errors import ShloError


class OutputError(ShloError, RuntimeError):
    """An output that cannot be written where it was asked for (no such folder, no permission)."""


def _scratch_beside(target: Path) -> tuple[int, Path]:
    """A new temporary file in `target`'s folder (so the final rename stays on one device)."""
    try:
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        if not target.parent.is_dir():
            reason = f"the folder {target.parent} does not exist"
            raise OutputError(f"cannot write {target}: {reason}") from None
        raise OutputError(f"cannot write {target}: {error.strerror}") from None
    return fd, Path(name)


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A scratch path beside `path` for a tool that writes files by name: renamed over `path`
    when the block ends normally, removed when it raises."""
    target = Path(path)
    fd, scratch = _scratch_beside(target)
    os.close(fd)
    try:
        yield scratch
        scratch.chmod(_final_mode(target))
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)


class AtomicOutput:
    """Write to a temporary file beside `path`; `commit()` renames it over `path`.

    Leaving the `with` block without `commit()` (a failure, an exception) deletes the temporary
    file and leaves any existing `path` as it was.  `-` means standard output, and a path that
    is not a regular file (`/dev/null`, a pipe) is written directly: renaming over it would
    replace the device with a file.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._scratch: Path | None = None
        self._owned = False
        self.stream: BinaryIO = sys.stdout.buffer

    def __enter__(self) -> AtomicOutput:
        if self.path == "-":
            return self
        target = Path(self.path)
        if target.exists() and not target.is_file():
            self.stream = open(target, "wb")  # noqa: SIM115 (closed in __exit__)
        else:
            fd, self._scratch = _scratch_beside(target)
            self.stream = os.fdopen(fd, "wb")
        self._owned = True
        return self

    def commit(self) -> None:
        self.stream.flush()
        if self._scratch is not None:
            self.stream.close()
            self._scratch.chmod(_final_mode(Path(self.path)))
            os.replace(self._scratch, self.path)
            self._scratch = None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._owned:
            self.stream.close()
        if self._scratch is not None:
            self._scratch.unlink(missing_ok=True)


def _final_mode(target: Path) -> int:
    """An existing file keeps its mode; a new one gets the usual 0666 less the umask."""
    if target.exists():
        return target.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
