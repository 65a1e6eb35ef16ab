"""IREE parameter archives (.irpa): the scopes compiled modules read weights under, where the
packed copies of an archive live, and a provider that maps an archive for the runtime.

Packed copies (`w.encoded.irpa`) are only right for the weights they were packed from, and a
leftover one beside another model's `w.irpa` would silently give that model's numbers.  So the
encoder records what it was made from (`MADE_FROM`, an entry of the packed archive: each input
archive's SHA-256, size and modification time), and a packed archive whose record does not
match the `w.irpa` beside it is never served.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shlo.errors import RunError
from shlo.ir.output import atomic_path
from shlo.runtime.bindings import ireert
from shlo.runtime.untrusted import UntrustedFileError, check_irpa, load_json

if TYPE_CHECKING:  # `shlo run` and the trial child of `LoadedModule` start without torch
    import torch

# The scope of the weights as exported, and of the packed copies IREE's encoder makes of them.
PARAMETER_SCOPE = "model"
ENCODED_SCOPE = "encoded"
# The packed archive's entry that records the archives it was made from (JSON, in its metadata).
MADE_FROM = "__shlo_made_from"


def encoded_archive(archive: str | Path) -> Path:
    """Where the packed copies of `archive`'s weights go: `w.irpa` -> `w.encoded.irpa`, beside
    the file a symlink `w.irpa` points at (where compiling through the link wrote them)."""
    path = Path(os.path.realpath(archive))
    return path.with_name(f"{path.stem}.{ENCODED_SCOPE}{path.suffix or '.irpa'}")


def load_index(path: str | Path, format: str | None = None) -> Any:
    """The parameter index of the archive at `path` (a RunError naming it when unreadable)."""
    index = ireert.ParameterIndex()
    try:
        check_irpa(path)
        index.load(str(path), format=format)
    except UntrustedFileError as error:  # names the file first
        raise RunError(f"cannot read the parameter archive {error}") from None
    except (OSError, RuntimeError, ValueError, IndexError) as error:  # IndexError: truncated
        said = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise RunError(f"cannot read the parameter archive {path}: {said}") from None
    return index


def _entries(path: Path) -> dict[str, Any]:
    """The entries of the archive at `path` by name; a name that is not UTF-8 (the bindings
    fail to convert it) is a RunError naming the file."""
    try:
        return dict(load_index(path).items())
    except RuntimeError as error:
        if "conversion error" not in str(error):
            raise
        raise RunError(
            f"cannot read the parameter archive {path}: an entry's name is not UTF-8 text"
        ) from None


def archive_provider(path: str | Path, scope: str, format: str | None = None) -> Any:
    """A parameter provider serving the mapped archive at `path` under `scope`; `format`
    when the file's extension does not name it (.irpa, .gguf, .safetensors)."""
    return load_index(path, format).create_provider(scope=scope)


def digest(path: str | Path) -> str:
    """The SHA-256 of a file's contents."""
    with open(path, "rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


def made_from(inputs: dict[str, str | Path]) -> str:
    """The record a packed archive keeps of the archives (scope -> path) it was made from."""
    record = {}
    for scope, path in inputs.items():
        status = os.stat(path)
        record[scope] = {"sha256": digest(path), "size": status.st_size,
                         "mtime_ns": status.st_mtime_ns}  # fmt: skip
    return json.dumps(record, sort_keys=True)


def stale_encoding(archive: str | Path) -> str | None:
    """Why the packed copies beside `archive` may not be used with it, or None when they may
    (or there are none).  Size and modification time vouch for an unchanged archive; else its
    contents are hashed and compared."""
    packed = encoded_archive(archive)
    if not packed.is_file():
        return None
    entries = _entries(packed)
    recorded = entries.get(MADE_FROM)
    redo = f"recompile with --parameters {archive} to rebuild it, or remove it"
    try:
        record = load_json(recorded.metadata, str(packed)) if recorded else None
    except UntrustedFileError:
        record = None
    source = record.get(PARAMETER_SCOPE) if isinstance(record, dict) else None
    if not isinstance(source, dict):
        return f"{packed} does not record which archive it was packed from; {redo}"
    status = os.stat(archive)
    if (status.st_size, status.st_mtime_ns) == (source.get("size"), source.get("mtime_ns")):
        return None
    if source.get("sha256") != digest(archive):
        return f"{packed} was packed from other weights than {archive} holds; {redo}"
    return None


def parameters_module(instance: Any, path: str | Path) -> Any:
    """The IREE module serving a compiled module's weights: the archive under the scope it was
    compiled to read, and its packed copies (`w.encoded.irpa`, written by llvm-cpu compiles)
    when they are beside it and were packed from it."""
    providers = [archive_provider(path, PARAMETER_SCOPE)]
    if encoded_archive(path).is_file() and stale_encoding(path) is None:
        providers.append(archive_provider(encoded_archive(path), ENCODED_SCOPE))
    return ireert.create_io_parameters_module(instance, *providers)


def write_archive(weights: dict[str, torch.Tensor], path: str | Path) -> None:
    """The tensors as an IREE parameter archive, written beside `path` and renamed into place."""
    from shlo.runtime.tensors import to_numpy

    index = ireert.ParameterIndex()
    for name, tensor in weights.items():
        index.add_buffer(name, np.ascontiguousarray(to_numpy(tensor)))
    with atomic_path(path) as scratch:
        index.create_archive_file(str(scratch))
