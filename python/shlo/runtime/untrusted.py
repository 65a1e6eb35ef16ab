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
import mmap
import os
import stat
import struct
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
    if not all(type(n) is int and n >= 0 for n in shape):  # numpy takes `True` for a size
        raise ValueError(f"its shape {tuple(shape)!r} is not a tuple of sizes")
    return tuple(shape), bool(fortran), np.dtype(dtype)


# IREE's parameter archive, version 0 (iree/schemas/parameter_archive.h): the header (magic,
# version major and minor, header size, next header's offset, flags, entry count, and the
# entry, metadata and storage segments as offset and length), and each entry's header (size,
# type, flags, name and metadata as offset and length in the metadata segment, alignment).
_IRPA_HEADER = struct.Struct("<4sHHQQQQQQQQQQ")
_IRPA_ENTRY = struct.Struct("<QIQQQQQQ")
_IRPA_RANGE = struct.Struct("<QQ")
_SKIP, _SPLAT, _DATA, _EXTERNAL = range(4)
_MAX_HEADERS = 1024  # archives linked into one file


def check_irpa(path: str | Path) -> None:
    """Raise UntrustedFileError unless every offset, length and count in the parameter archive
    at `path` lies inside the file: IREE's reader adds them without checking for overflow
    (and crashes), and follows an entry's path to any other file.  Files that are not IRPA
    archives (.gguf, .safetensors) are left to IREE."""
    with open_regular(path) as stream:
        if stream.read(4) != b"IRPA":
            return
        with mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_READ) as data:  # not read: mapped
            _check_headers(path, data)


def _check_headers(path: str | Path, data: mmap.mmap) -> None:
    """Each archive header in the file, and its entries."""
    base, seen = 0, 0
    while True:
        seen += 1
        if seen > _MAX_HEADERS or base + _IRPA_HEADER.size > len(data):
            raise UntrustedFileError(f"{path}: damaged (a header past its end)")
        (magic, major, _, header_size, following, _, count, *segments) = _IRPA_HEADER.unpack_from(
            data, base
        )
        if magic != b"IRPA" or major != 0:
            raise UntrustedFileError(f"{path}: not a parameter archive of version 0 (at {base})")
        entries, metadata, storage = ((base + segments[i], segments[i + 1]) for i in range(0, 6, 2))
        for start, length in ((base, header_size), entries, metadata, storage):
            _inside(path, start, length, len(data))
        if count * _IRPA_ENTRY.size > entries[1]:
            raise UntrustedFileError(f"{path}: {count:,} entries do not fit in its entry table")
        _check_entries(path, data, count, entries, metadata[1], storage[1])
        if not following:
            return
        base += following


def _check_entries(
    path: str | Path,
    data: mmap.mmap,
    count: int,
    entries: tuple[int, int],
    metadata: int,
    storage: int,
) -> None:
    """Each entry of a table inside the entry segment, its name and metadata inside the metadata
    segment (`metadata` bytes long), its data inside the storage segment (`storage`)."""
    at, end = entries[0], entries[0] + entries[1]
    for _ in range(count):
        _inside(path, at, _IRPA_ENTRY.size, end)
        size, kind, _, *ranges, _ = _IRPA_ENTRY.unpack_from(data, at)
        _inside(path, at, max(size, _IRPA_ENTRY.size), end)
        for offset, length in zip(ranges[::2], ranges[1::2], strict=True):
            _inside(path, offset, length, metadata)
        if kind == _EXTERNAL:
            raise UntrustedFileError(f"{path}: an entry refers to another file; not read")
        if kind == _DATA:
            _inside(path, at + _IRPA_ENTRY.size, _IRPA_RANGE.size, at + size)
            offset, length = _IRPA_RANGE.unpack_from(data, at + _IRPA_ENTRY.size)
            _inside(path, offset, length, storage)
        elif kind not in (_SKIP, _SPLAT):
            raise UntrustedFileError(f"{path}: an entry of unknown type {kind}")
        at += size + (-size % 16)


def _inside(path: str | Path, start: int, length: int, end: int) -> None:
    """`length` bytes at `start` end by `end` (Python's integers: no sum overflows)."""
    if start + length > end:
        raise UntrustedFileError(
            f"{path}: damaged ({length:,} bytes at {start:,} lie past the {end:,} they must fit in)"
        )
