"""JAX -> StableHLO: a JAX function or a serialized `jax.export.Exported`, exported in JAX's
child process and handed back as a portable artifact.

    imported = import_jax(mlp, params, x)            # a function at example arguments
    imported = import_jax("pkg.models:mlp", params, x)
    imported = import_jax("model.exported")          # exported.serialize()'s bytes

The child reaches a function by its module and name (no pickling of code): a function defined
at the top level of an importable module or file, jitted or not.  Lambdas, closures and
functions of `__main__` are refused with the way around (export it with `jax.export` and pass
the file).  The artifact is written for the newest StableHLO both sides read; an op newer than
that is refused, named with the version that introduced it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shlo.ir.module import IRModule
from shlo.ir.portable import deserialize
from shlo.ir.stablehlo import ir, stablehlo_version
from shlo.jax.process import JaxError, run_child
from shlo.jax.trees import Spec

_WAY_AROUND = (
    "define it at the top level of an importable module or file, or export it with "
    "jax.export and pass the file exported.serialize() writes"
)


@dataclass(frozen=True)
class JaxModule:
    """What JAX exported: the module as JAX wrote it (run `jax_flatten` before compiling) and
    the interface around its flat arguments and results."""

    name: str  # the function or file it came from
    module: IRModule
    in_tree: Spec  # the pytree of (args, kwargs)
    out_tree: Spec
    inputs: list[dict[str, Any]]  # {"shape", "dtype"} per flat argument (names for symbolic dims)
    outputs: list[dict[str, Any]]
    platforms: tuple[str, ...]
    stablehlo_version: str


def import_jax(
    fn: Any,
    *args: Any,
    kwargs: dict[str, Any] | None = None,
    platforms: tuple[str, ...] = ("cpu",),
    stablehlo_version: str | None = None,
) -> JaxModule:
    """Export `fn` (a function, `"pkg.mod:fn"` or `"path/file.py:fn"`) at example `args`
    (arrays, `jax.ShapeDtypeStruct`s, pytrees of them) for `platforms`, or read the serialized
    `jax.export.Exported` at the path `fn`, in JAX's child process.  `stablehlo_version`: the
    newest StableHLO the artifact may need (default: what shlo's StableHLO reads)."""
    request: dict[str, Any] = {
        "kind": "export",
        "reader": stablehlo_version or _wheels_version(),
        "platforms": list(platforms),
        "args": args,
        "kwargs": kwargs or {},
    }
    request.update(_target(fn))
    with tempfile.TemporaryDirectory(prefix="shlo-jax-") as work:
        answer = run_child(request, Path(work), f"JAX export of {_name(fn)}")
        data = (Path(work) / "module.vhlo").read_bytes()
    module = deserialize(data, _name(fn))
    _record_platforms(module, answer["platforms"])
    return JaxModule(
        _name(fn),
        module,
        answer["in_tree"],
        answer["out_tree"],
        answer["inputs"],
        answer["outputs"],
        tuple(answer["platforms"]),
        answer["stablehlo_version"],
    )


def _wheels_version() -> str:
    return stablehlo_version()


def _name(fn: Any) -> str:
    if isinstance(fn, (str, os.PathLike)):
        return str(fn)
    return getattr(fn, "__qualname__", None) or repr(fn)


def _target(fn: Any) -> dict[str, str]:
    """How the child finds `fn`: a file to read, or a function by module and name."""
    if isinstance(fn, os.PathLike) or (isinstance(fn, str) and ":" not in fn):
        path = Path(fn)
        if not path.is_file():
            raise JaxError(f"no file {path} (a serialized jax.export.Exported, or 'module:fn')")
        return {"exported": str(path.resolve())}
    if isinstance(fn, str):
        location, _, name = fn.rpartition(":")
        if location.endswith(".py") or "/" in location:
            if not Path(location).is_file():
                raise JaxError(f"cannot load '{fn}': no file {location}")
            return {"file": str(Path(location).resolve()), "qualname": name}
        return {"module": location, "qualname": name}
    return _reference(fn)


def _reference(fn: Any) -> dict[str, str]:
    """A function by module and name, checked to name `fn` itself."""
    if not callable(fn):
        raise JaxError(f"{type(fn).__name__} is not a function")
    module_name = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not module_name or not qualname or "<" in qualname:
        raise JaxError(f"{_name(fn)} is a lambda or a nested function, which JAX's process "
                       f"cannot import: {_WAY_AROUND}")  # fmt: skip
    if module_name == "__main__":
        raise JaxError(f"{qualname} is defined in __main__, which JAX's process cannot "
                       f"import: {_WAY_AROUND}")  # fmt: skip
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if found is not fn:
        raise JaxError(f"{module_name}.{qualname} is not the function given: {_WAY_AROUND}")
    module = sys.modules[module_name]
    if not _importable(module_name) and getattr(module, "__file__", None):
        return {"file": str(module.__file__), "qualname": qualname}
    return {"module": module_name, "qualname": qualname}


def _importable(name: str) -> bool:
    """Whether `import name` finds the module from `sys.path` (a module loaded from a file by
    path is not found by its name)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _record_platforms(module: IRModule, platforms: list[str]) -> None:
    """Write the platforms JAX lowered for on the module (`jax.platforms`), where
    `shlo-jax-platform` reads which value of the platform index to keep."""
    with module.context:
        module.operation.attributes["jax.platforms"] = ir.ArrayAttr.get(
            [ir.StringAttr.get(platform) for platform in platforms]
        )
