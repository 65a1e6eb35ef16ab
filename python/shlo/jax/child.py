"""The child process of `shlo.jax`: JAX's side of an import and of an XLA:CPU run.

JAX is imported only here, in a process of its own (`python -m shlo.jax.child WORK [--x64]`),
so that shlo's own process never loads jaxlib's MLIR by default.  The exchange:

    child:  {"stablehlo": "1.17.0"}      one line on stdout, the newest StableHLO jaxlib reads
    parent: writes WORK/request.pkl, then one line on stdin (an empty stdin stops the child)
    child:  writes WORK/response.json and the files it names, or exits 1 after one line
            `error: ...` on stderr

Two kinds of request:

    export  a function (`module` or `file`, and `qualname`) at example argument specs, or a
            serialized `jax.export.Exported` (`exported`): the StableHLO as a portable artifact
            no newer than `reader` (JAX's result names inside), the pytrees in and out
    run     a StableHLO module (a portable artifact) compiled by jaxlib's CPU client, run on
            `inputs.npz`

Array leaves in the request arrive as `("spec", shape, dtype)` persistent ids
(`shlo.jax.trees.RequestPickler`), rebuilt here as `jax.ShapeDtypeStruct`.
"""

from __future__ import annotations

import importlib
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

from shlo.jax.artifacts import newer_op, without_sharding
from shlo.jax.trees import spec_of


class ChildError(Exception):
    """A reason to refuse the request, printed as the child's one error line."""


def _import(request: dict[str, Any]) -> Any:
    """The module a request names: by name, or a file imported by its stem from its folder
    (so that its siblings import, as for a script)."""
    if "file" not in request:
        return importlib.import_module(request["module"])
    path = Path(request["file"]).resolve()
    sys.path.insert(0, str(path.parent))
    module = importlib.import_module(path.stem)
    if Path(getattr(module, "__file__", None) or "").resolve() != path:
        raise ChildError(f"{path}: the module name {path.stem} is taken by {module!r}")
    return module


def load_function(request: dict[str, Any]) -> Any:
    """The function a request names, checked to be callable."""
    module = _import(request)
    found: Any = module
    for part in request["qualname"].split("."):
        found = getattr(found, part, None)
        if found is None:
            where = request.get("file") or request["module"]
            raise ChildError(f"{where} has no '{request['qualname']}'")
    if not callable(found):
        raise ChildError(f"'{request['qualname']}' is a {type(found).__name__}, not a function")
    if type(found).__module__.split(".")[0] == "torch":
        raise ChildError(f"'{request['qualname']}' is a PyTorch {type(found).__name__}, not a JAX "
                         "function: import it without --frontend jax")  # fmt: skip
    return found


def exported_for(jax: Any, request: dict[str, Any]) -> Any:
    """The `jax.export.Exported` the request names: read from a file, or exported here."""
    if "exported" in request:
        data = Path(request["exported"]).read_bytes()
        try:
            return jax.export.deserialize(bytearray(data))
        except ImportError as error:  # jax needs flatbuffers to read the format
            raise ChildError(f"cannot read a serialized jax.export.Exported: {error}") from None
    function = load_function(request)
    jitted = function if hasattr(function, "lower") else jax.jit(function)
    args = jax.tree.map(lambda leaf: _spec(jax, leaf), request["args"])
    kwargs = jax.tree.map(lambda leaf: _spec(jax, leaf), request["kwargs"])
    return jax.export.export(jitted, platforms=request["platforms"])(*args, **kwargs)


def _spec(jax: Any, leaf: Any) -> Any:
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    value = np.asarray(leaf)
    return jax.ShapeDtypeStruct(value.shape, jax.dtypes.canonicalize_dtype(value.dtype))


def export(jax: Any, request: dict[str, Any], work: Path) -> dict[str, Any]:
    """Export, write the artifact for the reader's version, describe the interface."""
    from jaxlib.mlir.dialects import stablehlo

    exported = exported_for(jax, request)
    if "cpu" not in exported.platforms:
        raise ChildError(f"exported for {', '.join(exported.platforms)}, not for cpu")
    text = without_sharding(exported.mlir_module())
    current = stablehlo.get_current_version()
    version = min(current, request["reader"], key=lambda v: tuple(map(int, v.split("."))))
    try:
        artifact = stablehlo.serialize_portable_artifact_str(text, version)
    except ValueError:
        raise ChildError(
            f"the module is too new for StableHLO {version}: {newer_op(text, version)}"
        ) from None
    (work / "module.vhlo").write_bytes(artifact)
    avals = [{"shape": _dims(a.shape), "dtype": str(a.dtype)} for a in exported.in_avals]
    return {
        "stablehlo_version": version,
        "platforms": list(exported.platforms),
        "in_tree": spec_of(jax.tree.unflatten(exported.in_tree, range(len(avals)))),
        "out_tree": spec_of(jax.tree.unflatten(exported.out_tree, range(len(exported.out_avals)))),
        "inputs": avals,
        "outputs": [{"shape": _dims(a.shape), "dtype": str(a.dtype)} for a in exported.out_avals],
        "jax_version": jax.__version__,
    }


def _dims(shape: tuple[Any, ...]) -> list[int | str]:
    """A shape for JSON: symbolic dimensions by name."""
    return [d if isinstance(d, int) else str(d) for d in shape]


def run(jax: Any, request: dict[str, Any], work: Path) -> dict[str, Any]:
    """Compile the module with jaxlib's CPU client and run it on the saved inputs."""
    from jax.extend.backend import get_backend

    backend = get_backend("cpu")
    device = backend.devices()[0]
    artifact = Path(request["module"]).read_bytes()
    executable = backend.compile_and_load(artifact, [device])
    with np.load(request["inputs"], allow_pickle=False) as stored:
        inputs = [jax.device_put(stored[f"arr_{i}"], device) for i in range(len(stored.files))]
    results = [np.asarray(result) for result in executable.execute(inputs)]
    np.savez(work / "results.npz", *results)
    return {"results": len(results)}


class _RequestUnpickler(pickle.Unpickler):
    """Array specs back as `jax.ShapeDtypeStruct`s, symbolic dimensions (names) in one scope."""

    def persistent_load(self, pid: Any) -> Any:
        import jax

        _, dims, dtype = pid
        shape: Any = tuple(dims)
        if any(isinstance(d, str) for d in dims):
            if not hasattr(self, "scope"):
                self.scope = jax.export.SymbolicScope()
            text = ", ".join(map(str, dims))
            shape = jax.export.symbolic_shape(text, scope=self.scope)
        return jax.ShapeDtypeStruct(shape, jax.numpy.dtype(dtype))  # type: ignore[no-untyped-call]


def _torch_hint() -> str:
    """A hint where the user's module brought PyTorch in (this process never imports it)."""
    if "torch" not in sys.modules:
        return ""
    return (
        " (the function's module imports torch: a PyTorch factory is imported without "
        "--frontend jax)"
    )


def main(argv: list[str]) -> int:
    work = Path(argv[1])
    try:
        import jax
        from jaxlib.mlir.dialects import stablehlo
    except ImportError as error:
        print(f"error: JAX is not importable here ({error})", file=sys.stderr)
        return 1
    jax.config.update("jax_enable_x64", "--x64" in argv)  # type: ignore[no-untyped-call]  # as the caller's JAX has it
    print(json.dumps({"stablehlo": stablehlo.get_current_version()}), flush=True)
    if not sys.stdin.readline().strip():
        return 0
    try:
        with open(work / "request.pkl", "rb") as stream:
            request = _RequestUnpickler(stream).load()
        sys.path[:0] = [p for p in request.get("sys_path", []) if p not in sys.path]
        handler = {"export": export, "run": run}[request["kind"]]
        response = handler(jax, request, work)
    except Exception as error:  # JAX's and the user's errors, reported in one line
        message = " ".join(str(error).split()) or type(error).__name__
        kind = "" if isinstance(error, ChildError) else f"{type(error).__name__}: "
        print(f"error: {kind}{message}{_torch_hint()}", file=sys.stderr)
        return 1
    (work / "response.json").write_text(json.dumps(response))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
