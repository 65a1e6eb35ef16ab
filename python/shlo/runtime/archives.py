"""IREE parameter archives (.irpa): the scopes compiled modules read weights under, where the
packed copies of an archive live, and a provider that maps an archive for the runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shlo.runtime.bindings import ireert
from shlo.runtime.errors import RunError

# The scope of the weights as exported, and of the packed copies IREE's encoder makes of them.
PARAMETER_SCOPE = "model"
ENCODED_SCOPE = "encoded"


def encoded_archive(archive: str | Path) -> Path:
    """Where the packed copies of `archive`'s weights go: `w.irpa` -> `w.encoded.irpa`."""
    path = Path(archive)
    return path.with_name(f"{path.stem}.{ENCODED_SCOPE}{path.suffix or '.irpa'}")


def archive_provider(path: str | Path, scope: str, format: str | None = None) -> Any:
    """A parameter provider serving the mapped archive at `path` under `scope`; `format`
    when the file's extension does not name it (.irpa, .gguf, .safetensors)."""
    index = ireert.ParameterIndex()
    try:
        index.load(str(path), format=format)
    except (OSError, RuntimeError, ValueError) as error:
        raise RunError(f"cannot read the parameter archive {path}: {error}") from None
    return index.create_provider(scope=scope)


def parameters_module(instance: Any, path: str | Path) -> Any:
    """The IREE module serving a compiled module's weights: the archive under the scope it was
    compiled to read, and its packed copies (`w.encoded.irpa`, written by llvm-cpu compiles)
    when they are beside it."""
    archives = {PARAMETER_SCOPE: Path(path)}
    if encoded_archive(path).is_file():
        archives[ENCODED_SCOPE] = encoded_archive(path)
    providers = [archive_provider(archive, scope) for scope, archive in archives.items()]
    return ireert.create_io_parameters_module(instance, *providers)
