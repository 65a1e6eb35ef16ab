"""Every file shlo writes goes through here, so that a failed run never leaves a half-written
or clobbered output, and an output is written where the user's path leads.

Where the path leads (`resolve`):
  - a regular file, or none yet: a scratch file beside it, renamed over it on success (atomic;
    on failure or Ctrl-C the old contents stay and the scratch file goes);
  - a symlink: followed to its target, which is replaced as above; the link stays a link (a
    rename over the link itself would leave the file it points at with its old contents);
  - `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`: the descriptor this process already has
    open, written in place (reopening it would truncate a `>>` file, and a rename over the
    file the shell opened would write to a file nobody reads);
  - a character device, a FIFO: written in place (renaming over it would replace the device).

A folder output (a SavedModel) is built beside its destination and swapped in whole
(`atomic_folder`); a folder already there is replaced only when it is the same kind of output.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO, TextIO, cast

from shlo.errors import OutputError

# What a write to a full or failing destination raises: named with the path it was for.
_WRITE_ERRORS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO)
_SYMLINK_HOPS = 40  # Linux's own limit (ELOOP)
_DESCRIPTOR = re.compile(r"/proc/(\d+)(?:/task/\d+)?/fd/(\d+)")


@dataclass(frozen=True)
class Destination:
    """What writing to a path means: replace `file` atomically, or write in place to an open
    `descriptor` of this process or to a device or FIFO (`streamed`)."""

    file: Path
    descriptor: int | None = None
    streamed: bool = False


def resolve(path: str | Path) -> Destination:
    """Follow `path`'s symlinks to what it names (see the module's docstring)."""
    current = _normalized(os.path.abspath(path))
    for _ in range(_SYMLINK_HOPS):
        found = _DESCRIPTOR.fullmatch(current)
        if found and int(found.group(1)) == os.getpid():
            return Destination(Path(path), int(found.group(2)), streamed=True)
        try:
            status = os.lstat(current)
        except FileNotFoundError:
            return Destination(Path(current))
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror}") from None
        if stat.S_ISLNK(status.st_mode):
            current = _normalized(os.path.join(os.path.dirname(current), os.readlink(current)))
        elif stat.S_ISDIR(status.st_mode):
            raise OutputError(f"cannot write {path}: it is a folder")
        else:
            return Destination(Path(current), streamed=not stat.S_ISREG(status.st_mode))
    raise OutputError(f"cannot write {path}: too many levels of symbolic links")


def _normalized(path: str) -> str:
    """`path` with its folder's symlinks resolved (`..` after a symlink means the real
    parent) and its last component as it is."""
    folder, name = os.path.split(path)
    return os.path.join(os.path.realpath(folder or "."), name)


def _scratch_beside(target: Path) -> tuple[int, Path]:
    """A new temporary file in `target`'s folder (so the final rename stays on one device)."""
    try:
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise _cannot_write(target, error) from None
    return fd, Path(name)


def _cannot_write(target: Path, error: OSError) -> OutputError:
    """Why nothing can be made beside `target`, in the user's terms."""
    if not target.parent.is_dir():
        return OutputError(f"cannot write {target}: the folder {target.parent} does not exist")
    return OutputError(f"cannot write {target}: {error.strerror}")


def _publish(scratch: Path, target: Path) -> None:
    """Put the finished `scratch` in `target`'s place, with `target`'s mode."""
    scratch.chmod(_final_mode(target))
    try:
        os.replace(scratch, target)
    except OSError as error:
        raise OutputError(f"cannot write {target}: {error.strerror}") from None


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A scratch path for a tool that writes a file by name: put in `path`'s place (through
    its symlinks) when the block ends normally, removed when it raises.  A streamed
    destination gets the finished file's bytes copied to it."""
    destination = resolve(path)
    if destination.streamed:
        with tempfile.TemporaryDirectory(prefix="shlo-output-") as folder:
            scratch = Path(folder) / destination.file.name
            yield scratch
            with AtomicOutput(str(path)) as out, scratch.open("rb") as finished:
                shutil.copyfileobj(finished, out.stream)
                out.commit()
        return
    fd, scratch = _scratch_beside(destination.file)
    os.close(fd)
    try:
        yield scratch
        _publish(scratch, destination.file)
    finally:
        scratch.unlink(missing_ok=True)


def native_folder(path: str | Path) -> str:
    """`path` as a folder that native code (MLIR's IR tree printer) fills with files of its
    own, made if missing: an OutputError now when nothing can be written there, where the
    native code would only warn after the run and exit 0."""
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".shlo-", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except FileExistsError:
        raise OutputError(f"cannot write {path}: it is not a folder") from None
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None
    return str(folder)


def write_file(path: str | Path, data: bytes) -> None:
    """`data` as the whole of `path` (`-`: standard output), as every output is written."""
    with AtomicOutput(str(path)) as out:
        out.stream.write(data)
        out.commit()


@contextmanager
def atomic_folder(path: str | Path, kind: str, marker: str) -> Iterator[Path]:
    """A path (not made yet) to build a folder at, put in `path`'s place when the block ends
    normally, and removed with everything in it when the block raises.

    A symlink at `path` is followed: the folder it leads to is replaced, the link stays.  A
    folder already there is replaced whole only when it is empty or holds `marker` (a file every
    `kind` of output has), so that a mistyped path never deletes a user's folder; it is removed
    only once the new one is in place.  The build's parent is a private scratch folder beside
    the destination (the final rename stays on one file system), free for other scratch files.
    """
    target = Path(os.path.realpath(path))
    if target.is_symlink():
        raise OutputError(f"cannot write {path}: too many levels of symbolic links")
    if target.exists() and not target.is_dir():
        raise OutputError(f"cannot write {path}: it is a file, not a folder")
    if target.is_dir() and any(target.iterdir()) and not (target / marker).exists():
        raise OutputError(f"{path} exists and is not a {kind}: not replacing it")
    try:
        scratch = tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise _cannot_write(target, error) from None
    try:
        yield Path(scratch, "new")
        try:
            _swap_in(Path(scratch, "new"), target, Path(scratch, "old"))
        except OSError as error:
            raise OutputError(f"cannot write {path}: {error.strerror}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _swap_in(built: Path, target: Path, retired: Path) -> None:
    """`built` in `target`'s place; an older `target` moves to `retired` (put back if the
    swap fails half way)."""
    if not target.exists():
        os.rename(built, target)
        return
    os.rename(target, retired)
    try:
        os.rename(built, target)
    except OSError:
        os.rename(retired, target)
        raise


class AtomicOutput:
    """A stream for `path`: `commit()` puts what was written in place.

    Leaving the `with` block without `commit()` (a failure, an exception, Ctrl-C) deletes the
    scratch file and leaves any existing file as it was.  `-` means standard output; streamed
    destinations (`resolve`) are written directly, and `atomic` is False for them.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._scratch: Path | None = None
        self._target: Path | None = None
        self._owned = False
        self.stream: BinaryIO

    @property
    def atomic(self) -> bool:
        """Whether a failure leaves the destination as it was (False: written in place)."""
        return self._target is not None

    def __enter__(self) -> AtomicOutput:
        if self.path == "-":
            self.stream = _standard_output()
            self._owned = isinstance(self.stream, _TextSink)  # closing it writes what it holds
            return self
        destination = resolve(self.path)
        if destination.descriptor is not None:
            self.stream = _reopened(destination.descriptor, self.path)
        elif destination.streamed:
            try:
                self.stream = open(destination.file, "wb")  # noqa: SIM115 (closed in __exit__)
            except OSError as error:
                raise OutputError(f"cannot write {self.path}: {error.strerror}") from None
        else:
            fd, self._scratch = _scratch_beside(destination.file)
            self._target = destination.file
            self.stream = os.fdopen(fd, "wb")
        self._owned = True
        return self

    def commit(self) -> None:
        self.stream.flush()
        if self._scratch is not None and self._target is not None:
            self.stream.close()
            _publish(self._scratch, self._target)
            self._scratch = None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            if self._owned:
                self.stream.close()
        except OSError as failure:
            error = failure
        finally:
            if self._scratch is not None:
                self._scratch.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise self.named(error) from None

    def named(self, error: OSError) -> Exception:
        """A failed write to a full or failing destination as one line naming the path (an
        OSError from a write carries no file name); any other error as it is."""
        if error.errno in _WRITE_ERRORS:
            where = "to standard output" if self.path == "-" else self.path
            return OutputError(f"cannot write {where}: {error.strerror}")
        return error


def _standard_output() -> BinaryIO:
    """Where `-` writes: `sys.stdout` as it is now, which a caller may have replaced by a text
    stream (`contextlib.redirect_stdout(io.StringIO())`) that takes no bytes."""
    if sys.stdout is None:
        raise OutputError("cannot write -: there is no standard output")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        sys.stdout.flush()  # what was printed before comes before these bytes
        return cast(BinaryIO, buffer)
    return cast(BinaryIO, _TextSink(sys.stdout))


class _TextSink(io.RawIOBase):
    """A byte stream into a text stream: bytes decoded as UTF-8 (those that are not stay
    recoverable as surrogates), a character split across writes kept until it is whole."""

    def __init__(self, text: TextIO) -> None:
        super().__init__()
        self._text = text
        self._decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]  # any buffer: bytes(data)
        self._text.write(self._decoder.decode(bytes(data)))
        return len(data)

    def flush(self) -> None:
        if not self.closed:
            self._text.flush()

    def close(self) -> None:
        if not self.closed:
            self._text.write(self._decoder.decode(b"", final=True))
        super().close()


def _reopened(descriptor: int, path: str) -> BinaryIO:
    """A stream on a copy of this process's open `descriptor` (`/dev/stdout`): it writes at the
    descriptor's own offset, in its own mode (`>>` appends), as the shell set it up."""
    if descriptor in (1, 2):
        (sys.stdout if descriptor == 1 else sys.stderr).flush()
    try:
        return os.fdopen(os.dup(descriptor), "wb")
    except OSError as error:
        raise OutputError(f"cannot write {path}: {error.strerror}") from None


def _final_mode(target: Path) -> int:
    """An existing file keeps its mode; a new one gets the usual 0666 less the umask."""
    if target.exists():
        return target.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
