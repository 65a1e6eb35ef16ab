"""iree-run-module's value syntax, read and written: `2x2xf32=[1 2][3 4]`, `2x2xf32=1 2 3 4`,
`4xi64=7` (a splat), `2xf32` (zeros), `@x.npy` and `+@x.npy` (the next array of that file).

The IREE runtime wheel exposes no parser for it, so it is read here as the tool reads it:
brackets, commas and whitespace all separate elements; integers are read as integers (a 64-bit
value stays exact); `bf16` is ml_dtypes' bfloat16 (a `.npy` of 2-byte voids, as `np.save`
writes bfloat16, is read as bfloat16).  `format_value` prints a result in the
same syntax, with each float's shortest exact spelling, so it pastes back as an input or an
`--expected-output`.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import Any, BinaryIO

import ml_dtypes
import numpy as np

from shlo.errors import UsageError
from shlo.ir.element_types import DTYPES
from shlo.runtime.untrusted import open_regular, read_npy

ELEMENT_TYPES = {**DTYPES, "bf16": ml_dtypes.bfloat16, "si8": np.int8, "si16": np.int16,
                 "si32": np.int32, "si64": np.int64}  # fmt: skip
_NAMES = {np.dtype(v): k for k, v in reversed(list(ELEMENT_TYPES.items()))}
_SEPARATORS = re.compile(r"[\s,\[\]]+")
_SPEC = re.compile(r"((?:\d+x)*)(.*)", re.DOTALL)  # dimensions, then the element type


class NpyFiles:
    """Open `.npy` files, so that `+@x.npy` reads the array after the last one read."""

    def __init__(self) -> None:
        self._open: dict[str, BinaryIO] = {}

    def read(self, path: str, *, append: bool) -> np.ndarray:
        try:
            if not append or path not in self._open:
                if path in self._open:
                    self._open.pop(path).close()
                self._open[path] = open_regular(path)  # kept open for `+@`
            array = read_npy(self._open[path], path)
        except EOFError:
            raise UsageError(f"{path} holds no more arrays (+@ reads the next one)") from None
        except OSError as error:
            raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
        # np.save writes ml_dtypes' bfloat16 as 2-byte voids, the only type it saves so
        return array.view(ml_dtypes.bfloat16) if array.dtype == np.dtype("V2") else array

    def close(self) -> None:
        for stream in self._open.values():
            stream.close()
        self._open.clear()


def parse_values(texts: Sequence[str]) -> list[np.ndarray]:
    """Values in iree-run-module's syntax, in order: `+@x.npy` reads the array after the one
    the previous `@x.npy` or `+@x.npy` of the list read."""
    files = NpyFiles()
    try:
        return [parse_value(text, files) for text in texts]
    finally:
        files.close()


def save_value(target: str, array: np.ndarray) -> None:
    """Write `array` to `@x.npy` (replacing the file) or `+@x.npy` (after what it holds),
    atomically: a failed write leaves the file as it was."""
    from shlo.ir.output import AtomicOutput

    path = target.removeprefix("+").removeprefix("@")
    try:
        with AtomicOutput(path) as out:
            if target.startswith("+@") and out.atomic and os.path.exists(path):
                with open_regular(path) as earlier:
                    out.stream.write(earlier.read())
            np.save(out.stream, array, allow_pickle=False)
            out.commit()
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def parse_value(text: str, files: NpyFiles | None = None) -> np.ndarray:
    """One value in iree-run-module's syntax; `files` keeps `.npy` files open for `+@`."""
    if text.startswith(("@", "+@")):
        if files is None:  # a file of its own, closed once read
            return parse_values([text])[0]
        append = text.startswith("+")
        return files.read(text.removeprefix("+").removeprefix("@"), append=append)
    spec, has_values, values = text.partition("=")
    match = _SPEC.fullmatch(spec.strip())
    assert match is not None  # the pattern matches every string
    dims, element = match.groups()
    if element not in ELEMENT_TYPES:
        raise UsageError(
            f"bad value '{text}': expected SHAPExTYPE[=values] (e.g. 2x2xf32=[1 2][3 4]), "
            "@file.npy or +@file.npy"
        )
    shape, dtype = tuple(int(d) for d in dims.split("x") if d), np.dtype(ELEMENT_TYPES[element])
    _check_size(shape, dtype, text)
    words = [word for word in _SEPARATORS.split(values) if word] if has_values else []
    elements = [_element(word, dtype, text) for word in words]
    if len(elements) > 1 and len(elements) != math.prod(shape):
        raise UsageError(f"bad value '{text}': {len(elements)} values for shape {spec}")
    try:  # numpy refuses some shapes (more than 64 dimensions)
        if not elements:
            return np.zeros(shape, dtype)
        if len(elements) == 1:
            return np.full(shape, elements[0], dtype)
        return np.array(elements, dtype).reshape(shape)
    except ValueError as error:
        raise UsageError(f"bad value '{_short(text)}': {error}") from None


def memory_bytes() -> int:
    """The memory free for a new allocation here (Linux's MemAvailable, else the machine's
    physical memory): no value given on a command line can need more without the kernel
    killing the process that asks."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 2**63 - 1


def _check_size(shape: tuple[int, ...], dtype: np.dtype, text: str) -> None:
    """Refuse a shape whose array would not fit in memory twice (the array, and the device
    buffer it is copied to), before allocating it."""
    size, limit = math.prod(shape) * dtype.itemsize, memory_bytes() // 2
    if size > limit:
        raise UsageError(
            f"bad value '{_short(text)}': {size:,} bytes, more than half the memory free here "
            f"({limit:,} bytes)"
        )


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def _element(word: str, dtype: np.dtype, text: str) -> object:
    try:
        if dtype.kind in "iu":
            number = int(word, 0)
            info = np.iinfo(dtype)
            if not info.min <= number <= info.max:
                raise ValueError(f"{word} is outside {dtype}")
            return number
        if dtype.kind == "b":
            named = {"true": True, "false": False}
            return named[word.lower()] if word.lower() in named else bool(int(word))
        if dtype.kind == "c":
            return complex(word.replace("i", "j"))
        return float(word)
    except ValueError as error:
        raise UsageError(f"bad value '{text}': {error}") from None


def type_spec(array: np.ndarray) -> str:
    """`array`'s shape and element type as iree-run-module spells them: `2x3xf32`."""
    dtype = np.dtype(array.dtype)
    if dtype not in _NAMES:
        raise UsageError(f"no iree-run-module spelling for element type {dtype}")
    return "x".join([*map(str, array.shape), _NAMES[dtype]])


def format_value(array: np.ndarray) -> str:
    """`array` in iree-run-module's syntax: `SHAPExTYPE=[...][...]`, exact for every element."""
    return f"{type_spec(array)}={_nested(np.asarray(array), np.dtype(array.dtype))}"


def _nested(array: np.ndarray, dtype: np.dtype) -> str:
    """As iree-run-module prints: `1 2` (rank 1), `[1 2][3 4]`, `[[1 2][3 4]][[5 6][7 8]]`."""
    if array.ndim <= 1:
        return " ".join(_spelled(x, dtype) for x in array.reshape(-1))
    return "".join(f"[{_nested(part, dtype)}]" for part in array)


def _spelled(value: Any, dtype: np.dtype) -> str:
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "iu":
        return str(int(value))
    if dtype.kind == "c":
        real, imag = (_spelled(part, np.dtype(type(part))) for part in (value.real, value.imag))
        return f"{real}{'' if imag.startswith('-') else '+'}{imag}j"
    return str(value).removesuffix(".0")  # numpy's shortest spelling that reads back exactly
