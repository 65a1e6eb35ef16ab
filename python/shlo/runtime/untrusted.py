"""Files shlo did not write, read without trusting them: only regular files, only inside the
folder they belong to, and no allocation that their header asks for before the file is known
to hold that much.

A symlink in a bundle's `data/` would otherwise read any file the user can read; a FIFO there
would block forever; an `.npy` header announcing 10^10 elements would end in a MemoryError
long after the real problem (a damaged or hostile file) could have been named.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO, Literal, cast

import numpy as np

from shlo.errors import UsageError


class UntrustedFileError(UsageError, ValueError):
    """A file that is not what it claims to be, or not where it may be read from."""


def open_regular(path: str | Path, inside: str | Path | None = None) -> BinaryIO:
    """`path` opened for reading when it is a regular file (and, with `inside`, when it lies in
    that folder once symlinks are followed); opening never blocks, even on a FIFO."""
    path = Path(path)
    if inside is not None:
        folder = os.path.realpath(inside)
        real = os.path.realpath(path)
        if os.path.commonpath([folder, real]) != folder:
            raise UntrustedFileError(f"{path}: leads outside {inside} (a symlink?); not read")
        path = Path(real)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise UntrustedFileError(f"{path}: {error.strerror}") from None
    kind = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(kind):
        os.close(descriptor)
        raise UntrustedFileError(f"{path}: not a regular file ({_kind(kind)}); not read")
    os.set_blocking(descriptor, True)
    return os.fdopen(descriptor, "rb")


def read_bytes(path: str | Path, inside: str | Path | None = None) -> bytes:
    """A regular file's bytes (`open_regular`)."""
    with open_regular(path, inside) as stream:
        return stream.read()


def load_json(data: str | bytes, name: str) -> Any:
    """Untrusted JSON, or an UntrustedFileError naming `name`: numbers only finite (Python's
    reader takes `Infinity`, `NaN` and `1e999`, which no int conversion survives), nesting only
    as deep as the reader recurses."""
    try:
        return json.loads(data, parse_float=_finite, parse_constant=_finite)
    except RecursionError:
        raise UntrustedFileError(f"{name}: JSON nested too deeply; not read") from None
    except ValueError as error:  # a JSONDecodeError, bytes that are not UTF-8, an int too long
        raise UntrustedFileError(f"{name}: not valid JSON ({error})") from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is not finite")
    return value


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISBLK, "a block device")):  # fmt: skip
        if test(mode):
            return name
    return "not a file"


def read_npy(stream: BinaryIO, name: str, *, mmap: bool = False) -> np.ndarray:
    """The next array of an `.npy` stream, its header checked against the bytes that follow it
    before anything is allocated (`mmap`: mapped read-only, not read).  EOFError at the end."""
    start = stream.tell()
    if not stream.read(1):
        raise EOFError
    stream.seek(start)
    try:
        version = np.lib.format.read_magic(stream)
        shape, fortran, dtype = _read_header(stream, version)
    except Exception as error:  # numpy parses the header as a Python literal: any error
        raise UntrustedFileError(f"{name}: cannot read as .npy ({error})") from None
    if dtype.hasobject:
        raise UntrustedFileError(
            f"{name}: cannot read as .npy: it holds Python objects (never unpickled)"
        )
    size = math.prod(shape) * dtype.itemsize
    left = os.fstat(stream.fileno()).st_size - stream.tell()
    if size > left:
        raise UntrustedFileError(
            f"{name}: its header announces {dtype}[{', '.join(map(str, shape))}] "
            f"({size:,} bytes) but only {left:,} bytes follow it (a damaged or truncated .npy)"
        )
    if mmap and size:
        offset = stream.tell()
        stream.seek(offset + size)
        order: Literal["C", "F"] = "F" if fortran else "C"
        return np.memmap(stream, dtype, "r", offset=offset, shape=shape, order=order)
    stream.seek(start)
    try:
        return cast(np.ndarray, np.load(stream, allow_pickle=False))
    except MemoryError:
        raise UntrustedFileError(f"{name}: {size:,} bytes do not fit in memory here") from None
    except ValueError as error:
        raise UntrustedFileError(f"{name}: cannot read as .npy ({error})") from None


def _read_header(
    stream: BinaryIO, version: tuple[int, int]
) -> tuple[tuple[Any, ...], bool, np.dtype]:
    """numpy's header reader for `version`: 3.0 differs from 2.0 only in allowing UTF-8 in
    structured field names, which no tensor has, and numpy has no public reader for it."""
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    return tuple(shape), bool(fortran), np.dtype(dtype)
