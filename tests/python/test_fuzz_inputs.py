"""Seeded mutants of every input kind shlo reads, through every command users run and every
Python call that reads it.

Each mutant (bytes flipped, cut short, a run of bytes repeated or dropped) of a valid .mlir,
.mlirbc, portable artifact (VHLO), .vmfb, .irpa (the weights, and the packed copies beside
them), .npy, bundle metadata file and cache entry (a compile, and the list of passes), and each
hostile input (`hostile`: a field of a format its reader reads, set to an extreme: an `.npy`
header's shape, dtype and order; an archive's offsets, lengths and counts; each key of bundle
metadata; MLIR's dimensions, element types, literals and nesting; MLIR bytecode's version,
sections, string and dialect tables; every field of a `.vmfb`'s FlatBuffer, its zip header and
its embedded ELF; a cache entry's seal, and entries that are no regular file; each form of an
`--input` value, and files that are no regular file) goes through each of its commands (as
`python -m` runs them, forked from a process that has imported what they import) and each of
its Python calls (in a long-lived Python process, `API`).
Whatever the damage:

  - the command ends with exit 0 or 1 (never a signal, never a hang), says why in one line
    (MLIR's diagnostic may show its source line and a caret) without a traceback or "a bug in
    shlo", and leaves its `-o` file as it was when it fails;
  - the Python call returns or raises a ShloError of one such line, and the process that made
    it lives on;
  - nothing is left in the mutant's folder but its input and output (a leftover), and nothing
    outside it changes (an escape: the valid inputs every mutant is made from are checked).

A failure names the kind and seed: `mutant(data, kind, seed)` (or `hostile`) rebuilds that
input.  `SHLO_FUZZ_COUNT` (1) sets how many mutants per kind the default run takes (fewer for
the kinds whose every mutant compiles, `_COSTLY`), `SHLO_FUZZ_HOSTILE_COUNT` (1) how many hostile
inputs, all through workers shared by every test (`Workers`); the slow tests run
`SHLO_FUZZ_SLOW_COUNT` (1,000) more of each kind, from the seed after those on (every hostile
variant, at most), `SHLO_FUZZ_WORKERS` (2) at a time.  Each kind prints its tally by
command and call (`pytest -s`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import random
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import threading
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from shlo.ir.versions import sealed, unsealed

FIXTURE_BUNDLE = Path(__file__).resolve().parent / "fixtures" / "torch_xla_bundle"
COUNT = int(os.environ.get("SHLO_FUZZ_COUNT", "1"))
SLOW_COUNT = int(os.environ.get("SHLO_FUZZ_SLOW_COUNT", "1000"))
HOSTILE_COUNT = int(os.environ.get("SHLO_FUZZ_HOSTILE_COUNT", "1"))
WORKERS = int(os.environ.get("SHLO_FUZZ_WORKERS", "2"))
TIMEOUT = 180  # seconds: beyond any one read here (the bytecode guard gives up at 60 s)
SENTINEL = b"the output before the run\n"
ADD = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
WEIGHTS = """func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %w = stablehlo.constant dense<"0xHEX"> : tensor<64x64xf32>
  %0 = stablehlo.dot %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}
"""
_MODULES = {"shlo": "shlo.tools.cli", "shlo-opt": "shlo.tools.opt_main",
            "shlo-translate": "shlo.tools.translate_main"}  # fmt: skip
KINDS = ["mlir", "mlirbc", "vhlo", "vmfb", "irpa", "packed", "npy", "meta", "cache"]
# Kinds whose every mutant compiles (meta: a bundle; cache: an entry evicted and compiled anew):
# fewer of them in the fast test.
_COSTLY = {"meta": 4, "cache": 8}
# Each kind's Python calls, by name, on `path` (the damaged file, or the bundle, archive or cache
# folder holding it); one line per mutant: each call's outcome, or the first bug.
API = """
import json, os, sys
from pathlib import Path
import numpy as np

valid = Path(sys.argv[1])
one, weights_input = np.arange(4, dtype=np.float32), np.ones((4, 64), np.float32)

def load(path):
    import shlo
    return shlo.load(path)

def deserialize(path):
    from shlo.ir.portable import deserialize
    return deserialize(Path(path).read_bytes())

def loaded(path, parameters=None, *args):
    from shlo.runtime.loaded import LoadedModule
    return LoadedModule(path, parameters=parameters)("main", *args)

def values(path):
    from shlo.runtime.value_syntax import parse_values
    return parse_values([f"@{path}"])

def value(path):
    from shlo.runtime.value_syntax import parse_values
    return parse_values([Path(path).read_bytes().decode("utf8", "surrogateescape")])

def array(path):
    from shlo.torch.bundle import VariableSignature, load_array
    return load_array(Path(path), VariableSignature([4], "float32"))

def bundle(path):
    from shlo.torch.bundle import Bundle
    return Bundle(path)(np.ones((2, 4), np.float32))

def cached(path):
    from shlo.backend.compile import compile_module
    from shlo.runtime.loaded import LoadedModule
    os.environ["SHLO_CACHE_DIR"] = path
    compiled = compile_module(load(valid / "x.mlir"), "llvm-cpu", use_cache=True)
    return LoadedModule(compiled.vmfb)("main", one)

weights = lambda vmfb: lambda path: loaded(str(valid / vmfb), path, weights_input)
calls = {
    "mlir": {"shlo.load": load},
    "mlirbc": {"shlo.load": load},
    "vhlo": {"shlo.load": load, "portable.deserialize": deserialize},
    "vmfb": {"LoadedModule": lambda path: loaded(path, None, one)},
    "irpa": {"LoadedModule(parameters=)": weights("wv.vmfb")},
    "packed": {"LoadedModule(parameters=)": weights("w.vmfb")},
    "npy": {"parse_values": values, "load_array": array},
    "value": {"parse_values": value},
    "meta": {"Bundle": bundle},
    "cache": {"compile_module(use_cache=True)": cached},
}
from shlo.errors import ShloError
for line in sys.stdin:
    kind, path = line.rstrip("\\n").split("\\t")
    said = {}
    for name, call in calls[kind].items():
        try:
            call(path)
            said[name] = "ok"
        except ShloError as error:
            said[name] = f"error\\n{error}"
        except Exception as error:
            said[name] = f"bug {type(error).__name__}: {error}".replace("\\n", " ")[:500]
    print(json.dumps(said), flush=True)
"""
# Each command starts as a fork of one process that has imported what the commands import
# (torch and both wheels: seconds of every command's time), then runs as `python -m` runs it.
SERVER = """
import json, os, sys
import shlo.backend.compile, shlo.ir.load, shlo.ir.portable, shlo.runtime.loaded, shlo.torch.bundle

for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        break
    print(pid, flush=True)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
else:
    sys.exit(0)
import runpy

os.setpgid(0, 0)
written = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
for fd, (name, flags) in enumerate([(os.devnull, os.O_RDONLY), (request["stdout"], written),
                                    (request["stderr"], written)]):
    os.dup2(os.open(name, flags, 0o644), fd)
sys.stdin, sys.stdout = open(0, closefd=False), open(1, "w", closefd=False)
sys.stderr = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)
os.environ.update(request["env"])
sys.argv = ["-m", *request["args"]]
runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
"""
_FRESH = {"cache"}  # a Python process of its own per mutant: compiles are cached in memory


def mutant(data: bytes, kind: str, seed: int) -> bytes:
    """`data` damaged in one of four ways, chosen and placed by `seed`."""
    rng = random.Random(f"{kind}-{seed}")
    data = bytearray(data)
    how = rng.choice(["flip", "flip", "truncate", "splice"])
    if how == "flip":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    elif how == "truncate":
        del data[rng.randrange(len(data)) :]
    else:
        start = rng.randrange(len(data))
        length = rng.randint(1, 64)
        chunk = data[start : start + length]
        data[start : start + length] = chunk * 2 if rng.random() < 0.5 else b""
    return bytes(data)


# Hostile variants by construction: each kind's format, field by field (the fields its reader
# reads), with the values that reader must refuse in one line (or take).  Variant `seed` of a
# kind is the `seed`-th of its full list, shuffled once in a fixed order, so that as many seeds
# as the list is long try every variant.
_EXTREME_INTS = [0, 1, -1, 2**31, 2**32 - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**400]


def _npy_header(fields: dict[str, str], version: tuple[int, int] = (1, 0)) -> bytes:
    """An `.npy` header holding `fields` as written (Python literals, not checked), padded as
    numpy pads it."""
    text = "{" + "".join(f"'{key}': {value}, " for key, value in fields.items()) + "}"
    body = text.encode("latin1" if version < (3, 0) else "utf8", "surrogateescape")
    length = "<H" if version == (1, 0) else "<I"
    prefix = 6 + 2 + struct.calcsize(length)
    padded = body + b" " * (-(prefix + len(body) + 1) % 64) + b"\n"
    return b"\x93NUMPY" + bytes(version) + struct.pack(length, len(padded)) + padded


def _hostile_npy(data: bytes) -> list[bytes]:
    """Every key numpy's header reader reads (`EXPECTED_KEYS`) given each odd value, every
    dtype numpy knows by its type code in both byte orders, and headers that lie about their
    own length or version."""
    stream = io.BytesIO(data)
    version = np.lib.format.read_magic(stream)
    assert version == (1, 0)  # as np.save writes a small array
    shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    payload = data[stream.tell() :]
    valid = {"descr": repr(np.lib.format.dtype_to_descr(dtype)), "fortran_order": repr(fortran),
             "shape": repr(shape)}  # fmt: skip
    assert set(valid) == np.lib.format.EXPECTED_KEYS
    dims = [str(n) for n in _EXTREME_INTS] + ["4.0", "'4'", "None", "True", "-0"]
    odd = {
        "shape": [f"({d},)" for d in dims] + [f"(4, {d})" for d in dims]
        + ["()", "[4]", "None", "4", f"({2**31}, {2**31}, {2**31})", "(" + "1, " * 65 + ")",
           "(" * 200 + ")" * 200],
        "descr": [repr(np.dtype(code).newbyteorder(order).str) for code in np.typecodes["All"]
                  for order in "<>"]
        + [repr(d) for d in ["|V2", "<c32", "O", "|O", "<U0", "|S0", "<M8[ns]", "<m8[D]", "<f99",
                             "", "x", "<f4" * 1000]]
        + ["[('a', '<f4')]", "[('a', 'O')]", f"[('a', '<f4', ({2**63},))]",
           f"[('a', '<f8', ({2**31}, {2**31}))]", "None", "4"],
        "fortran_order": ["True", "1", "0", "'yes'", "None", "2"],
    }  # fmt: skip
    variants = [_npy_header({**valid, key: value}) + payload
                for key, values in odd.items() for value in values]  # fmt: skip
    for key in valid:
        variants.append(_npy_header({k: v for k, v in valid.items() if k != key}) + payload)
    variants.append(_npy_header({**valid, "extra": "1"}) + payload)
    variants += [_npy_header(valid, version) + payload for version in [(2, 0), (3, 0), (9, 9)]]
    header = _npy_header(valid)
    for length in [0, 1, 0xFFFF]:
        variants.append(header[:8] + struct.pack("<H", length) + header[10:] + payload)
    variants.append(header[:-1] + b"\xff\xfe\n" + payload)
    variants.append(header.replace(b"{", b"[", 1) + payload)
    return variants


def _paths(value: Any, at: tuple = ()) -> Iterator[tuple]:
    """Every key path in a JSON document (a list by its first element)."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*at, key))
    elif isinstance(value, list) and value:
        yield from _paths(value[0], (*at, 0))


def _read_fields(cls: type, at: tuple = ()) -> Iterator[tuple]:
    """The key paths a bundle's metadata reader reads, from its dataclasses' fields (a list of
    dataclasses by its first element)."""
    for name, hint in typing.get_type_hints(cls).items():
        yield (*at, name)
        inner = typing.get_args(hint)
        if inner and dataclasses.is_dataclass(inner[0]):
            yield from _read_fields(cast(type, inner[0]), (*at, name, 0))


def _with(document: Any, path: tuple, value: str | None) -> str:
    """`document` as JSON with the value at `path` (made when missing) written as `value`
    verbatim (`None`: the key removed)."""
    marker = "\0hostile\0"
    copy = json.loads(json.dumps(document))
    *parents, last = path
    node = copy
    for key in parents:
        node = node[key]
    if value is None:
        del node[last]
    else:
        node[last] = marker
    return json.dumps(copy, indent=1).replace(json.dumps(marker), value or "")


_JSON_VALUES = [
    "1e999", "-1e999", "-0", "-0.0", "NaN", "Infinity", "9" * 5000, "-1", str(2**63),
    str(2**64), "1.5", "true", "null", '""', '"x"', '"\\u0000"', '"\\ud800"', "[]", "{}",
    "[[]]", '["x"]', "[1e999]", '{"shape": 1}', "[" * 100000 + "]" * 100000,
    '"' + "[" * 100000 + '"',
]  # fmt: skip


def _hostile_meta(data: bytes) -> list[bytes]:
    """Each key the metadata reader reads (its dataclasses' fields) and each key the file has,
    given each hostile JSON value, removed, and given twice; and whole documents JSON's reader
    takes but no field survives."""
    from shlo.torch.bundle import FunctionMeta

    document = json.loads(data)
    paths = sorted({*list(_paths(document))[1:], *_read_fields(FunctionMeta)}, key=str)
    variants = []
    for path in paths:
        for value in [*_JSON_VALUES, None]:
            with contextlib.suppress(KeyError, IndexError, TypeError):
                variants.append(_with(document, path, value).encode())
        # the same key twice: JSON's reader keeps the last
        with contextlib.suppress(KeyError, IndexError, TypeError):
            text = _with(document, path, "1e999")
            key = json.dumps(path[-1])
            if isinstance(path[-1], str):
                variants.append(text.replace(f"{key}: 1e999", f"{key}: 1, {key}: 1e999").encode())
    for spec in ("input_pytree_spec", "output_pytree_spec"):
        for inner in _JSON_VALUES[:24]:
            variants.append(_with(document, (spec,), json.dumps(inner)).encode())
    variants += [b"", b"null", b"[]", b"\xef\xbb\xbf" + data, data.replace(b'"forward"', b'"\xff"'),
                 data + b"x", b"[" * 100000, data.replace(b"{", b"{\n", 1) * 2]  # fmt: skip
    return variants


def _hostile_mlir(data: bytes) -> list[bytes]:
    """MLIR text the parser reads (dimensions, element types, dense literals, nesting,
    strings and comments) at the extremes of each."""
    text = data.decode()
    variants = []
    for dim in ["0", "99999999999", str(2**63 - 1), str(2**63), str(2**64), "-1", "?",
                "99999999999x99999999999"]:  # fmt: skip
        variants.append(text.replace("tensor<4x", f"tensor<{dim}x"))
        variants.append(text.replace("<4xf32>", f"<{dim}xf32>"))
    for element in ["i1024", "i0", "i16777215", "i16777216", "ui7", "f8E4M3FN", "complex<i1024>",
                    "tensor<4xf32>", "index", "none", "!unknown.t", "i9999999999"]:  # fmt: skip
        variants.append(text.replace("f32", element))
    constant = "  %c = stablehlo.constant {} : {}\n"
    for literal, type_ in [("dense<[1.0, 2.0, 3.0]>", "tensor<4xf32>"),
                           ("dense<[1.0, 2.0, 3.0, 4.0, 5.0]>", "tensor<4xf32>"),
                           ('dense<"0x0000">', "tensor<4xf32>"),
                           ('dense<"0x' + "00" * 15 + '">', "tensor<4xf32>"),
                           ("dense<1.0>", "tensor<99999999999xf32>"),
                           ("dense<1.0>", f"tensor<{2**31}x{2**31}xf32>"),
                           ("dense<1e999>", "tensor<4xf32>"),
                           ("dense<" + "9" * 400 + ">", "tensor<4xi32>"),
                           ("dense<1>", "tensor<4xi1024>"),
                           ("dense<" + "[" * 10000 + "1.0" + "]" * 10000 + ">", "tensor<4xf32>"),
                           ("dense_resource<blob>", "tensor<4xf32>")]:  # fmt: skip
        variants.append(text.replace("{\n", "{\n" + constant.format(literal, type_), 1))
        body = constant.format(literal, type_)
        variants.append(text.replace("{\n", "{\n" + body + "  %d = stablehlo.add %c, %c : "
                                     + type_ + "\n", 1))  # fmt: skip
    for depth in [100, 10000, 100000]:
        variants.append("module {\n" * depth + text + "}\n" * depth)
        variants.append(text.replace("tensor<4xf32>", "tuple<" * depth + "f32" + ">" * depth, 1))
        variants.append("// " + "(" * depth + "\n" + text)
    variants += [
        text.replace("@main", '@main attributes {note = "\udcff\udcfe"}'),
        "// \udcff\udcfe comment\n" + text,
        text.replace("@main", "@\udcff"),
        text + "\0",
        "\0" + text,
        "",
        "#map = affine_map<(d0) -> (d0)>\n" * 10000 + text,
        text.replace("stablehlo.add", "stablehlo.add" + " " * 100000),
        text * 1000,
    ]
    return [v.encode("utf8", "surrogateescape") if isinstance(v, str) else v for v in variants]


def _irpa_fields(data: bytes) -> list[tuple[int, str]]:
    """Where each integer field of an IREE parameter archive lies, and its struct format: the
    header (iree/schemas/parameter_archive.h, version 0) and each entry of its table."""
    header = [("<I", "magic"), ("<H", "version_major"), ("<H", "version_minor"),
              ("<Q", "header_size"), ("<Q", "next_header_offset"), ("<Q", "flags"),
              ("<Q", "entry_count"), ("<Q", "entry_offset"), ("<Q", "entry_length"),
              ("<Q", "metadata_offset"), ("<Q", "metadata_length"), ("<Q", "storage_offset"),
              ("<Q", "storage_length")]  # fmt: skip
    entry = [("<Q", "entry_size"), ("<I", "type"), ("<Q", "flags"), ("<Q", "name_offset"),
             ("<Q", "name_length"), ("<Q", "metadata_offset"), ("<Q", "metadata_length"),
             ("<Q", "minimum_alignment"), ("<Q", "storage_offset"),
             ("<Q", "storage_length")]  # fmt: skip
    fields, offset = [], 0
    for format_, _ in header:
        fields.append((offset, format_))
        offset += struct.calcsize(format_)
    count, table = struct.unpack_from("<QQ", data, 32)
    for _ in range(count):
        size = struct.unpack_from("<Q", data, table)[0]
        offset = table
        for format_, _ in entry:
            fields.append((offset, format_))
            offset += struct.calcsize(format_)
        table += size + (-size % 16)
    return fields


def _hostile_irpa(data: bytes) -> list[bytes]:
    """Each integer field of the archive's header and entries at each extreme (`_extremes`),
    another field's value included."""
    return _extremes(data, _irpa_fields(data))


def _hostile_values(_: bytes) -> list[bytes]:
    """`--input` values in each form the value parser reads (`SHAPExTYPE`, `=values`, `@file`,
    `+@file`), each element type it knows, with extreme shapes and elements, and files that
    are not regular files or lead out of their folder."""
    from shlo.runtime.value_syntax import ELEMENT_TYPES

    shapes = ["", "0x", "4x", "100000x100000x", "99999999999999999999x", "1x" * 70, "-1x", "4xx"]
    values = ["", "=", "=0", "=1e999", "=nan", "=-0", "=" + "9" * 400, "=0x7f", "=[[1 2][3]]",
              "=1,2,3,4,5", "=true", "=1+2j", "=\udcff"]  # fmt: skip
    variants = [f"{shape}{element}{value}" for element in [*ELEMENT_TYPES, "f33", ""]
                for shape in shapes for value in values]  # fmt: skip
    for file in ["{fifo}", "{folder}", "/dev/zero", "{to_zero}", "{outside}", "{missing}",
                 "{valid}", "", "{hostile_npy}"]:  # fmt: skip
        variants += [f"@{file}", f"+@{file}"]
    return [v.encode("utf8", "surrogateescape") for v in variants]


def _varint(value: int, width: int = 0) -> bytes:
    """`value` as MLIR bytecode's PrefixVarInt, in `width` bytes (0: as few as it takes; 9: the
    form that holds any 64-bit value)."""
    value %= 2**64
    width = width or next((n for n in range(1, 9) if value < 1 << 7 * n), 9)
    if width == 9:
        return b"\0" + value.to_bytes(8, "little")
    return ((value << width) | 1 << (width - 1)).to_bytes(width, "little")


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    """The PrefixVarInt at `at`, and where it ends."""
    if data[at] == 0:
        return int.from_bytes(data[at + 1 : at + 9], "little"), at + 9
    width = (data[at] & -data[at]).bit_length()  # its trailing zeros, and 1
    return int.from_bytes(data[at : at + width], "little") >> width, at + width


@dataclasses.dataclass
class _Section:
    """Where one section of MLIR bytecode lies: its id byte, its header's varints (length, and
    alignment when it has one), its body."""

    start: int
    header: list[int]
    body: int
    end: int


def _sections(data: bytes, at: int, end: int) -> list[_Section]:
    """The sections between `at` and `end` (MLIR's `parseSection`: an id byte whose top bit says
    an alignment follows, the length, the alignment, padding up to it)."""
    sections = []
    while at < end:
        start, aligned = at, data[at] & 0x80
        length, at = _read_varint(data, at + 1)
        header = [start + 1]
        if aligned:
            header.append(at)
            _, at = _read_varint(data, at)
            while data[at] == 0xCB:  # the alignment padding
                at += 1
        sections.append(_Section(start, header, at, at + length))
        at += length
    return sections


def _bytecode_varints(data: bytes) -> tuple[list[int], int, list[_Section]]:
    """Where the varints MLIR's bytecode reader reads first lie (the version; each section's
    length and alignment, and the first varints of its body; the string table's count and
    lengths; each dialect's name and its version, a section of its own), where the producer
    string starts, and the sections."""
    _, producer = _read_varint(data, 4)
    sections = _sections(data, data.index(0, producer) + 1, len(data))
    varints = [4]
    for section in sections:
        varints += section.header
        at = section.body
        for _ in range(8):  # the first varints of each body: counts, offsets, indices
            if at >= section.end:
                break
            varints.append(at)
            _, at = _read_varint(data, at)
        if data[section.start] & 0x7F == 0:  # strings: their count, then each one's length
            count, at = _read_varint(data, section.body)
            for _ in range(count):
                varints.append(at)
                _, at = _read_varint(data, at)
        if data[section.start] & 0x7F == 1:  # dialects: a name (and a version) each
            count, at = _read_varint(data, section.body)
            for _ in range(count):
                varints.append(at)
                name, at = _read_varint(data, at)
                if name & 1:  # its version: a section of its own
                    (version,) = _sections(data, at, at + 1)
                    varints += version.header
                    inner = version.body
                    while inner < version.end:
                        varints.append(inner)
                        _, inner = _read_varint(data, inner)
                    at = version.end
    return sorted(set(varints)), producer, sections


def _hostile_bytecode(data: bytes) -> list[bytes]:
    """MLIR bytecode as its reader reads it (mlir/lib/Bytecode/Reader): each varint it reads
    first (the version, section lengths and alignments, counts, string lengths, dialect names
    and versions) set to each extreme and written in its widest form; each section given every
    id, an alignment, dropped, doubled, swapped with the next or cut inside; the producer
    string without its end, empty or naming other StableHLO versions."""
    varints, producer, sections = _bytecode_varints(data)
    variants = []
    for at in varints:
        value, end = _read_varint(data, at)
        for new in sorted({0, 1, 2, 3, 7, value - 1, value + 1, len(data), len(data) - at,
                           2**31, 2**32, 2**63, 2**64 - 1} - {value, -1}):  # fmt: skip
            variants.append(data[:at] + _varint(new) + data[end:])
        variants.append(data[:at] + _varint(value, 9) + data[end:])
    for i, section in enumerate(sections):
        variants += _section_variants(data, section, sections[i + 1 : i + 2])
    for name in set(re.findall(rb"[a-z_.]+\0", data)):  # strings MLIR's messages quote
        variants.append(data.replace(name, b"\xf4" + name[1:]))
    end = data.index(0, producer)
    for name in [b"", b"x" * 65536, b"\xff\xfe", b"StableHLO_v0.0.0", b"StableHLO_v99.0.0",
                 b"StableHLO_v1.0", b"StableHLO_v" + b"9" * 100 + b".0.0",
                 b"MLIR99.0.0git"]:  # fmt: skip
        variants.append(data[:producer] + name + data[end:])
    return [*variants, data[:end] + b"x" + data[end + 1 :], data[:end]]


def _section_variants(data: bytes, section: _Section, after: list[_Section]) -> list[bytes]:
    """`section` given every id (and an alignment), dropped, doubled, swapped with the one
    `after` it, cut in its header and its body."""
    head, body, tail = data[: section.start], data[section.start : section.end], data[section.end :]
    variants = [head + bytes([new | body[0] & 0x80]) + body[1:] + tail
                for new in [*range(10), 0x7F] if new != body[0] & 0x7F]  # fmt: skip
    if not body[0] & 0x80:
        length = body[1 : section.body - section.start]
        for alignment in [0, 3, 64, 2**32]:
            variants.append(head + bytes([body[0] | 0x80]) + length + _varint(alignment)
                            + data[section.body :])  # fmt: skip
    variants += [head + tail, head + body + body + tail]
    for next_ in after:
        variants.append(head + data[next_.start : next_.end] + body + data[next_.end :])
    for cut in sorted({section.start + 1, section.body, (section.body + section.end) // 2}):
        variants.append(data[:cut])
    return variants


def _flatbuffer_fields(data: bytes, at: int, table: str) -> Iterator[tuple[int, str, str]]:
    """Where each integer a FlatBuffer reader reads lies in the table at `at` of IREE's
    `bytecode_module_def.fbs` (`_VMFB_TABLES`), its struct format and, for the length of a
    string or vector, `TABLE.SLOT:KIND`: the table's vtable offset, the vtable's sizes and
    slots, each scalar, each offset to a string, vector or table, and each length; then those
    of the tables it holds."""
    vtable = at - struct.unpack_from("<i", data, at)[0]
    size = struct.unpack_from("<H", data, vtable)[0]
    yield from [(at, "<i", ""), (vtable, "<H", ""), (vtable + 2, "<H", "")]
    for slot, kind in enumerate(_VMFB_TABLES[table][: (size - 4) // 2]):
        yield vtable + 4 + 2 * slot, "<H", ""
        offset = struct.unpack_from("<H", data, vtable + 4 + 2 * slot)[0]
        field = at + offset
        if not offset:
            continue
        if kind in _SCALARS:
            yield field, _SCALARS[kind], ""
            continue
        yield field, "<I", ""
        target = field + struct.unpack_from("<I", data, field)[0]
        if kind in _VMFB_TABLES:
            yield from _flatbuffer_fields(data, target, kind)
            continue
        yield target, "<I", f"{table}.{slot}:{kind}"  # a string's or a vector's length
        element = kind.strip("[]")
        for i in range(struct.unpack_from("<I", data, target)[0] if kind != "string" else 0):
            if element in _VMFB_TABLES:
                item = target + 4 + 4 * i
                yield item, "<I", ""
                yield from _flatbuffer_fields(
                    data, item + struct.unpack_from("<I", data, item)[0], element
                )
            elif element == "FunctionDescriptor":
                for offset, format_ in _packed(target + 4 + 20 * i, _DESCRIPTOR):
                    yield offset, format_, ""


_SCALARS = {"u8": "<B", "u32": "<I", "i32": "<i", "u64": "<Q"}
_DESCRIPTOR = ["<i", "<i", "<I", "<h", "<h", "<h", "<h"]  # a FunctionDescriptor struct
# Each table of iree/schemas/bytecode_module_def.fbs, its fields in slot order (a union takes
# two slots: its type, then its value).
_VMFB_TABLES = {
    "BytecodeModuleDef": ["string", "u32", "u32", "[AttrDef]", "[TypeDef]",
                          "[ModuleDependencyDef]", "[ImportFunctionDef]", "[ExportFunctionDef]",
                          "[FunctionSignatureDef]", "[RodataSegmentDef]", "[RwdataSegmentDef]",
                          "ModuleStateDef", "[FunctionDescriptor]", "u32", "[u8]",
                          "DebugDatabaseDef"],
    "AttrDef": ["string", "string"],
    "TypeDef": ["string"],
    "FunctionSignatureDef": ["string", "[AttrDef]"],
    "ModuleDependencyDef": ["string", "u32", "u32"],
    "ImportFunctionDef": ["string", "FunctionSignatureDef", "u32"],
    "ExportFunctionDef": ["string", "i32"],
    "RodataSegmentDef": ["u8", "UncompressedDataDef", "[u8]", "u64", "u64"],
    "UncompressedDataDef": [],
    "RwdataSegmentDef": ["i32"],
    "ModuleStateDef": ["i32", "i32"],
    "DebugDatabaseDef": [],
}  # fmt: skip
# The zip local file header IREE's archive reader skips (iree/vm/bytecode/archive.c).
_ZIP_HEADER = ["<I", "<H", "<H", "<H", "<H", "<H", "<I", "<I", "<I", "<H", "<H"]
# ELF64's header after its identification, as IREE's embedded ELF loader reads it
# (iree/hal/local/elf/elf_module.c), and a program header's fields.
_ELF_HEADER = ["<H", "<H", "<I", "<Q", "<Q", "<Q", "<I", "<H", "<H", "<H", "<H", "<H", "<H"]
_ELF_SEGMENT = ["<I", "<I", "<Q", "<Q", "<Q", "<Q", "<Q", "<Q"]


def _packed(start: int, formats: list[str]) -> list[tuple[int, str]]:
    """Where each of consecutive fields of `formats` lies, from `start`."""
    fields = []
    for format_ in formats:
        fields.append((start, format_))
        start += struct.calcsize(format_)
    return fields


def _vmfb_fields(data: bytes) -> list[tuple[int, str, str]]:
    """Where each integer IREE's module loader reads lies (as `_flatbuffer_fields` says): the
    zip header before the module, the FlatBuffer's size prefix and root, every field of its
    tables, and the header and program headers of each ELF it embeds (the executables)."""
    names, extra = struct.unpack_from("<HH", data, 26)
    base = 30 + names + extra
    fields = [*_packed(0, _ZIP_HEADER), (base, "<I"), (base + 4, "<I")]
    at = data.find(b"\x7fELF")
    while at >= 0:
        fields += _packed(at + 16, _ELF_HEADER)
        segments = struct.unpack_from("<Q", data, at + 32)[0]
        for i in range(struct.unpack_from("<H", data, at + 56)[0]):
            fields += _packed(at + segments + 56 * i, _ELF_SEGMENT)
        at = data.find(b"\x7fELF", at + 1)
    root = base + 4 + struct.unpack_from("<I", data, base + 4)[0]
    module = _flatbuffer_fields(data, root, "BytecodeModuleDef")
    return [(offset, format_, "") for offset, format_ in fields] + list(module)


def _extremes(data: bytes, fields: list[tuple[int, str]], others: bool = True) -> list[bytes]:
    """Each integer field set to each extreme: zero, small, the file's size and past it,
    "negative" (2**bits - k), the largest of its sign, and (with `others`: few fields) each
    other field's value (segments that overlap)."""
    values = {struct.unpack_from(f, data, o)[0] for o, f in fields} if others else set()
    variants = []
    for offset, format_ in fields:
        bits = 8 * struct.calcsize(format_)
        for value in sorted({0, 1, 3, 4, 16, len(data) - 1, len(data), len(data) + 1,
                             2**(bits - 1) - 1, 2**(bits - 1), 2**bits - 16, 2**bits - 1,
                             *values}):  # fmt: skip
            damaged = bytearray(data)
            struct.pack_into(format_.upper(), damaged, offset, value % 2**bits)
            if damaged != data:
                variants.append(bytes(damaged))
    return variants


def _hostile_vmfb(data: bytes) -> list[bytes]:
    """An IREE module as its loader and verifier read it (iree/vm/bytecode/archive.c,
    module.c, verifier.c): every integer field at each extreme (`_extremes`); each string
    (module, function, type and import names, calling conventions) with bytes that are not
    UTF-8, a NUL, its end dropped, and each calling convention's every character swapped for
    each type code; each byte of the first function bodies (the bytecode) set to the largest
    opcode and to the next one."""
    fields = _vmfb_fields(data)
    variants = _extremes(data, [(offset, format_) for offset, format_, _ in fields], others=False)
    for at, _, what in fields:
        length, text = struct.unpack_from("<I", data, at)[0], at + 4
        if what.endswith(":string"):
            for new in [b"\xff" * length, b"\0" + data[text + 1 : text + length]]:
                variants.append(data[:text] + new[:length] + data[text + length :])
            variants.append(data[: text + length] + b"x" + data[text + length + 1 :])
            if data[text : text + 1] == b"0":  # a calling convention: 0, arguments, _, results
                for i in range(1, length):
                    for code in b"_iIrvX":
                        variants.append(data[: text + i] + bytes([code]) + data[text + i + 1 :])
        elif what == "BytecodeModuleDef.14:[u8]":  # bytecode_data: the first functions'
            for i in range(text, text + min(length, 256)):
                for byte in (0xFF, (data[i] + 1) % 256):
                    variants.append(data[:i] + bytes([byte]) + data[i + 1 :])
    return variants


# Cache entries that are no regular file (`Inputs.place` makes them): a FIFO, a folder, a
# symlink to /dev/zero, a symlink to an entry outside the folder.
_NOT_FILES = (b"\0fifo", b"\0folder", b"\0zero", b"\0outside")


def _hostile_cache(data: bytes) -> list[bytes]:
    """A compile cache entry (`shlo.ir.versions.sealed`): its seal missing, altered, cut or
    doubled; an empty entry, sealed or not; the module damaged since it was sealed (a sample
    of `_hostile_vmfb`'s variants, the seal as it was); and entries that are no regular file
    (`_NOT_FILES`)."""
    vmfb = unsealed(data)
    seal = data[len(vmfb) :]
    digit = seal[-1:].translate(bytes.maketrans(b"0123456789abcdef", b"123456789abcdef0"))
    variants = [vmfb, data[:-1], data + b"\n", vmfb + seal + seal, b"", seal, sealed(b""),
                seal[:-64] + seal[-64:].upper(), data[:-1] + digit, *_NOT_FILES]  # fmt: skip
    damaged = _hostile_vmfb(vmfb)
    variants += [variant + seal for variant in damaged[:: max(1, len(damaged) // 500)]]
    return variants


HOSTILE = {"mlir": _hostile_mlir, "mlirbc": _hostile_bytecode, "vhlo": _hostile_bytecode,
           "vmfb": _hostile_vmfb, "irpa": _hostile_irpa, "packed": _hostile_irpa,
           "npy": _hostile_npy, "meta": _hostile_meta, "cache": _hostile_cache,
           "value": _hostile_values}  # fmt: skip


@cache
def _hostile_list(data: bytes, kind: str) -> list[bytes]:
    variants = HOSTILE[kind](data)
    random.Random(kind).shuffle(variants)
    return variants


def hostile(data: bytes, kind: str, seed: int) -> bytes:
    """Hostile variant `seed` of `kind`, made from the valid `data`."""
    variants = _hostile_list(data, kind)
    return variants[seed % len(variants)]


class Inputs:
    """Valid inputs of every kind, where each mutant goes, and the commands that read it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "x.mlir").write_text(ADD)
        weights = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(np.float32)
        (folder / "w.mlir").write_text(WEIGHTS.replace("HEX", weights.tobytes().hex().upper()))
        self._make("shlo-opt", folder / "x.mlir", "--emit-bytecode", "-o", folder / "x.mlirbc")
        self._make("shlo-translate", folder / "x.mlir", "--serialize", "-o", folder / "x.vhlo")
        self._make("shlo", "compile", folder / "w.mlir", "--parameters", folder / "w.irpa",
                   "-o", folder / "w.vmfb")  # fmt: skip
        # VMVX reads its weights from the archive alone (llvm-cpu also from the packed copies,
        # which are refused once the archive they were packed from changes).
        self._make("shlo", "compile", folder / "w.mlir", "--target", "vmvx", "--parameters",
                   folder / "wv.irpa", "-o", folder / "wv.vmfb")  # fmt: skip
        np.save(folder / "x.npy", np.arange(4, dtype=np.float32))
        made = Caller(folder).call("cache", folder / "cache")
        assert made == {"compile_module(use_cache=True)": "ok"}, made
        self._make("shlo-opt", "--list-passes", cache=folder / "cache")
        (self.entry,) = (folder / "cache").glob("*.vmfb")
        (self.passes,) = (folder / "cache").glob("passes.json-*")
        (folder / "x.vmfb").write_bytes(unsealed(self.entry.read_bytes()))  # `shlo compile`'s

    @staticmethod
    def _make(tool: str, *args: object, cache: Path | None = None) -> None:
        command = [sys.executable, "-m", _MODULES[tool], *map(str, args)]
        env = {**os.environ, "SHLO_CACHE_DIR": str(cache)} if cache else None
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr

    def original(self, kind: str) -> bytes:
        if kind == "meta":
            return (FIXTURE_BUNDLE / "functions" / "forward.meta").read_bytes()
        if kind == "cache":
            return self.entry.read_bytes()
        if kind == "value":  # a command-line value, made whole by `hostile`
            return b""
        name = {"irpa": "wv.irpa", "packed": "w.encoded.irpa"}.get(kind, f"x.{kind}")
        return (self.folder / name).read_bytes()

    def digest(self) -> str:
        """Every valid input's bytes: no mutant's run may change them."""
        files = sorted(p for p in self.folder.rglob("*") if p.is_file())
        return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files)).hexdigest()

    def place(self, kind: str, work: Path, damaged: bytes) -> Path:
        """`damaged` written where `kind`'s readers take it from; what they are given."""
        if kind == "meta":
            shutil.copytree(FIXTURE_BUNDLE, work / "bundle")
            (work / "bundle" / "functions" / "forward.meta").write_bytes(damaged)
            return work / "bundle"
        if kind == "packed":  # the packed copies beside the archive they were made from
            shutil.copy(self.folder / "w.irpa", work / "input.irpa")
            (work / "input.encoded.irpa").write_bytes(damaged)
            return work / "input.irpa"
        if kind == "cache":  # the entries a compile and a pass pipeline find (and evict)
            (work / "cache").mkdir(exist_ok=True)
            self._entry(work / "cache" / self.entry.name, damaged)
            seed = int(work.name.rpartition("-")[2])
            passes = mutant(self.passes.read_bytes(), "cache-text", seed)
            (work / "cache" / self.passes.name).write_bytes(passes)
            return work / "cache"
        if kind == "value":  # the value, its `{file}`s made here
            os.mkfifo(work / "fifo")
            (work / "folder").mkdir()
            (work / "to_zero").symlink_to("/dev/zero")
            (work / "outside").symlink_to(self.folder / "x.npy")
            (work / "hostile_npy").write_bytes(
                _npy_header({"descr": "'<f4'", "fortran_order": "False", "shape": f"({2**40},)"})
            )
            names = ("fifo", "folder", "to_zero", "outside", "missing", "hostile_npy")
            files = {name: str(work / name) for name in names}
            text = damaged.decode("utf8", "surrogateescape").format(valid=self.folder / "x.npy",
                                                                    **files)  # fmt: skip
            (work / "input.value").write_bytes(text.encode("utf8", "surrogateescape"))
            return work / "input.value"
        (work / f"input.{kind}").write_bytes(damaged)
        return work / f"input.{kind}"

    def _entry(self, path: Path, damaged: bytes) -> None:
        """A cache entry at `path` (replacing what a run left there): `damaged`'s bytes, or what
        `_NOT_FILES` names."""
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        path.unlink(missing_ok=True)
        made = {b"\0fifo": lambda: os.mkfifo(path), b"\0folder": path.mkdir,
                b"\0zero": lambda: path.symlink_to("/dev/zero"),
                b"\0outside": lambda: path.symlink_to(self.entry)}  # fmt: skip
        made.get(damaged, lambda: path.write_bytes(damaged))()

    def commands(self, kind: str, source: Path, out: Path) -> dict[str, tuple]:
        """Each command reading `source` as a `kind` input and writing `out`, by name."""
        one = "--input=4xf32=1 2 3 4"
        ir = {"shlo-opt": ("shlo-opt", source, "-o", out),
              "shlo-translate": ("shlo-translate", source, "-o", out),
              "shlo compile": ("shlo", "compile", source, "-o", out)}  # fmt: skip
        if kind == "vhlo":
            ir["shlo-translate"] = ("shlo-translate", source, "--deserialize", "-o", out)
        if kind in ("mlir", "mlirbc", "vhlo"):
            return ir
        if kind == "cache":  # compiles: cached for compile_module(use_cache=True) only
            return {"shlo-opt --list-passes": ("shlo-opt", "--list-passes")}
        value = source.read_bytes().decode("utf8", "surrogateescape") if kind == "value" else ""
        module, inputs = {
            "value": (self.folder / "x.vmfb", [f"--input={value}"]),
            "vmfb": (source, [one]),
            "npy": (self.folder / "x.vmfb", [f"--input=@{source}"]),
            "irpa": (self.folder / "wv.vmfb", ["--parameters", source, "--input=4x64xf32=1"]),
            "packed": (self.folder / "w.vmfb", ["--parameters", source, "--input=4x64xf32=1"]),
            "meta": (source, ["--input=2x4xf32=1"]),
        }[kind]
        commands = {
            "shlo run": ("shlo", "run", module, *inputs, f"--output=@{out}"),
            "shlo bench": ("shlo", "bench", module, *inputs, "--runs", "1"),
        }
        if kind == "meta":
            commands["shlo compile"] = ("shlo", "compile", source, "-o", out)
        return commands


class Commands:
    """Runs commands as forks of a `SERVER` process."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.process: subprocess.Popen | None = None

    def run(self, command: tuple, env: dict[str, str]) -> tuple[int | None, str]:
        """`command`'s exit status (None: still running after TIMEOUT, killed) and stderr."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True,
            )  # fmt: skip
        assert self.process.stdin and self.process.stdout
        tool, *args = map(str, command)
        streams = {name: str(self.scratch / name) for name in ("stdout", "stderr")}
        request = {"module": _MODULES[tool], "args": args, "env": env, **streams}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        pid = int(self.process.stdout.readline())
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        if not ready:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        status = int(self.process.stdout.readline())
        return (status if ready else None), Path(streams["stderr"]).read_text(errors="replace")

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class Caller:
    """A Python process making each kind's calls on one mutant after another; a new one
    replaces it when it dies (a caller death) or stops answering (a hang), and after each
    mutant of a `_FRESH` kind."""

    def __init__(self, valid: Path) -> None:
        self.valid = valid
        self.process: subprocess.Popen | None = None
        self.status: int | None = None  # the last process's, once it is gone

    def call(self, kind: str, path: Path) -> dict[str, str]:
        """Each call's outcome by name: `ok`, `error` and its message on the next line (a
        ShloError) or `bug ...`; or, for the process, `died ...` or `hung`."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, "-c", API, str(self.valid)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            )  # fmt: skip
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(f"{kind}\t{path}\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        said = self.process.stdout.readline().strip() if ready else None
        if said and kind not in _FRESH:
            return json.loads(said)
        self.close()
        if said:
            return json.loads(said)
        return {"Python": "hung" if said is None else f"died (status {self.status})"}

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.status = self.process.wait()
            self.process = None


class Worker:
    """What one thread of the battery runs mutants with."""

    def __init__(self, inputs: Inputs, scratch: Path) -> None:
        scratch.mkdir()
        self.inputs = inputs
        self.commands = Commands(scratch)
        self.caller = Caller(inputs.folder)

    def close(self) -> None:
        self.commands.close()
        self.caller.close()


class Workers:
    """The battery's workers, shared by every test here: each starts its server and its Python
    caller (seconds of imports) once, not once a test."""

    def __init__(self, inputs: Inputs, root: Path) -> None:
        self.inputs = inputs
        self.root = root
        self.idle: list[Worker] = []
        self.opened = 0
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Worker]:
        with self.lock:
            worker = self.idle.pop() if self.idle else None
            self.opened += worker is None
            number = self.opened
        if worker is None:
            worker = Worker(self.inputs, self.root / f"worker-{number}")
        try:
            yield worker
        finally:
            with self.lock:
                self.idle.append(worker)

    def close(self) -> None:
        for worker in self.idle:
            worker.close()


_PROBLEMS = ("traceback", "caller death", "hang", "clobber", "leftover", "escape", "verbose")


Damage = Callable[[bytes, str, int], bytes]


def check(
    worker: Worker, kind: str, seed: int, root: Path, damage: Damage = mutant
) -> tuple[list[str], list[str]]:
    """Input `seed` of `kind`, as `damage` (`mutant` or `hostile`) makes it, through its
    commands and its Python calls: what each entry point did (`name: outcome`), and the
    problems."""
    inputs = worker.inputs
    work = root / f"{kind}-{damage.__name__}-{seed}"
    work.mkdir()
    damaged = damage(inputs.original(kind), kind, seed)
    outcomes, problems = [], []
    source = inputs.place(kind, work, damaged)
    out = work / ("out" if kind in ("mlir", "mlirbc", "vhlo") else "out.npy")
    env = {"SHLO_CACHE_DIR": str(source)} if kind == "cache" else {}
    for name, command in inputs.commands(kind, source, out).items():
        out.write_bytes(SENTINEL)
        outcome, problem = _run(worker.commands, command, env, out)
        outcomes.append(f"{name}: {outcome}")
        if problem:
            problems.append(f"{kind} {damage.__name__} seed {seed}, {' '.join(map(str, command))}: "
                            f"{problem}")  # fmt: skip
        out.unlink()
    if kind == "cache":
        inputs.place(kind, work, damaged)  # again: the command may have rebuilt it
    for name, answer in worker.caller.call(kind, source).items():
        answer, _, message = answer.partition("\n")
        if len(_own_lines(message)) > 1:
            problems.append(f"{kind} {damage.__name__} seed {seed}: the Python call {name} said "
                            f"{message}")  # fmt: skip
            answer = "verbose"
        elif answer.startswith(("hung", "died", "bug")):
            kinds = {"hung": "hang", "died": "caller death", "bug": "traceback"}
            problems.append(
                f"{kind} {damage.__name__} seed {seed}: the Python call {name} {answer}"
            )
            answer = kinds[answer.split()[0]]
        outcomes.append(f"{name}: {answer}")
    if not problems:
        shutil.rmtree(work)
    return outcomes, problems


def _run(commands: Commands, command: tuple, env: dict[str, str], out: Path) -> tuple[str, str]:
    """`command`'s outcome, and what it did wrong ("" if nothing)."""
    before = sorted(os.listdir(out.parent))
    status, said = commands.run(command, env)
    said = said.strip()
    if status is None:
        return "hang", f"still running after {TIMEOUT} s"
    if status not in (0, 1):
        return "caller death", f"exit {status}: {said[-500:]}"
    if "Traceback" in said or "a bug in shlo" in said or (status == 1 and not said):
        return "traceback", f"exit {status}: {said[-800:] or 'not a word'}"
    if status == 1 and len(own := _own_lines(said)) > 1:
        return "verbose", f"exit {status}, {len(own)} lines: {said[-800:]}"
    if status == 1 and out.read_bytes() != SENTINEL:
        return "clobber", "failed and changed its output file"
    if (after := sorted(os.listdir(out.parent))) != before:
        return "leftover", f"its folder held {before} before, {after} after"
    contained = " (a native crash, contained)" if "crashed" in said else ""
    return f"exit {status}{contained}", ""


_CARET = re.compile(r"\s*\^~*\s*")  # not a block's label (`^bb0(...)`) in a printed op
_DIAGNOSTIC = re.compile(r"^(?:.+?:\d+:\d+|<unknown>:0): (?:error|warning|note|remark): ")


def _own_lines(said: str) -> list[str]:
    """The lines of `said` in shlo's own words: not MLIR's diagnostics (each with the source line
    and caret under it, and a verifier's "see current operation" note with the operation it
    prints, as mlir-opt prints them), nor the line saying the output was left as it was."""
    lines = said.split("\n")
    carets = {i for i, line in enumerate(lines) if _CARET.fullmatch(line)}
    detail = carets | {i - 1 for i in carets}
    printing = False  # inside the operation a "see current operation" note prints
    for i, line in enumerate(lines):
        if _DIAGNOSTIC.match(line) or i in detail:
            printing = line.rstrip().endswith("see current operation:")
        elif printing:
            detail.add(i)
    return [line for i, line in enumerate(lines) if i not in detail and line.strip()
            and not _DIAGNOSTIC.match(line) and not line.endswith(" left as it was")]  # fmt: skip


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("valid"))


@pytest.fixture(scope="module")
def workers(inputs: Inputs, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    shared = Workers(inputs, tmp_path_factory.mktemp("workers"))
    yield shared
    shared.close()


def _battery(workers: Workers, kind: str, cases: list[tuple[Damage, int]], root: Path) -> None:
    """Each `(damage, seed)` input of `kind` through `check`, `WORKERS` at a time; prints each
    problem as it is found and a count every 100 inputs, then the tally, and fails on any
    problem."""
    inputs = workers.inputs
    before = inputs.digest()
    so_far: Counter[str] = Counter()
    lock = threading.Lock()

    def one(case: tuple[Damage, int]) -> tuple[list[str], list[str]]:
        with workers.borrow() as worker:
            outcome = check(worker, kind, case[1], root, case[0])
        with lock:  # as it goes, so that a run cut short still says what it found
            so_far["run"] += 1
            so_far["problems"] += len(outcome[1])
            for problem in outcome[1]:
                print(f"{kind}: {problem}", flush=True)
            if so_far["run"] % 100 == 0:
                print(f"{kind}: {so_far['run']} of {len(cases)} run, {so_far['problems']} "
                      "problems so far", flush=True)  # fmt: skip
        return outcome

    with ThreadPoolExecutor(WORKERS) as pool:
        results = list(pool.map(one, cases))
    problems = [problem for _, found in results for problem in found]
    tally = Counter(outcome for outcomes, _ in results for outcome in outcomes)
    if inputs.digest() != before:
        problems.append(f"{kind}: a run changed the valid inputs outside its own folder")
    found = Counter(problem for outcomes, _ in results for o in outcomes
                    if (problem := o.split(": ", 1)[1]) in _PROBLEMS)  # fmt: skip
    found["escape"] += inputs.digest() != before
    by_entry: dict[str, Counter] = {}
    for outcome, n in tally.items():
        name, said = outcome.split(": ", 1)
        by_entry.setdefault(name, Counter())[said] += n
    ran = Counter(damage.__name__ for damage, _ in cases)
    print(f"\n{kind}: " + ", ".join(f"{n} {name}s" for name, n in ran.items())
          + f" (seeds {min(s for _, s in cases)}-{max(s for _, s in cases)}); problems: "
          + ", ".join(f"{found[p]} {p}" for p in _PROBLEMS))  # fmt: skip
    for name, said in by_entry.items():
        print(f"  {name}: " + ", ".join(f"{n} {o}" for o, n in sorted(said.items())))
    assert not problems, "\n".join(problems)


def _count(kind: str, count: int) -> int:
    return max(1, count // _COSTLY.get(kind, 1))


@pytest.mark.parametrize("kind", [*KINDS, "value"])
def test_damaged_and_hostile_inputs_end_in_a_clear_failure(
    workers: Workers, kind: str, tmp_path: Path
) -> None:
    """A few of each kind's mutants and hostile variants (the first seeds of each)."""
    mutants = range(_count(kind, COUNT)) if kind in KINDS else range(0)
    hostiles = range(_count(kind, HOSTILE_COUNT))
    cases = [(mutant, seed) for seed in mutants] + [(hostile, seed) for seed in hostiles]
    _battery(workers, kind, cases, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_many_damaged_inputs(workers: Workers, kind: str, tmp_path: Path) -> None:
    _battery(workers, kind, [(mutant, seed) for seed in range(COUNT, COUNT + SLOW_COUNT)], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", HOSTILE)
def test_every_hostile_input(workers: Workers, kind: str, tmp_path: Path) -> None:
    every = len(_hostile_list(workers.inputs.original(kind), kind))
    seeds = range(HOSTILE_COUNT, min(every, HOSTILE_COUNT + SLOW_COUNT))
    _battery(workers, kind, [(hostile, seed) for seed in seeds], tmp_path)


def _properties_zeroed(data: bytes, kind: str, seed: int) -> bytes:
    """Varint `seed` of the properties section (the last one MLIR writes) set to 0."""
    varints, _, sections = _bytecode_varints(data)
    (properties,) = (section for section in sections if data[section.start] & 0x7F == 8)
    inside = [at for at in varints if properties.body <= at < properties.end]
    at = inside[seed % len(inside)]
    return data[:at] + _varint(0) + data[_read_varint(data, at)[1] :]


def test_an_artifact_that_parses_and_crashes_in_conversion(
    workers: Workers, tmp_path: Path
) -> None:
    """A portable artifact whose op properties are damaged parses as bytecode, and crashed the
    caller in VHLO's conversion to StableHLO (the battery found the sixth varint of the
    properties section set to 0): read in the guard's child as a whole."""
    _battery(workers, "vhlo", [(_properties_zeroed, 5)], tmp_path)


def _dialect_not_utf8(data: bytes, kind: str, seed: int) -> bytes:
    """The builtin dialect's name with a byte that is not UTF-8 (MLIR's message quotes it)."""
    return data.replace(b"builtin\0", b"buil\xf4in\0", 1)


def test_a_message_quoting_bytes_that_are_not_utf8_is_one_line(
    workers: Workers, tmp_path: Path
) -> None:
    """MLIR names the unknown dialect in its message, bytes the bindings cannot convert: that
    was a traceback in shlo-translate (found by the battery)."""
    _battery(workers, "vhlo", [(_dialect_not_utf8, 0)], tmp_path)
