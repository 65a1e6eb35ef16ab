"""A JAX function compiled with IREE, called like the function.

    compiled = compile_jax(mlp, params, x, target="llvm-cpu")   # or "vulkan", "cuda", "vmvx"
    probs = compiled(params, x)           # numpy arrays, in the pytree the function returns

Import in JAX's child (`import_jax`), `jax_flatten`, `compile_module`, `LoadedModule`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from shlo.backend.compile import Compiled, compile_module
from shlo.backend.targets import Target
from shlo.ir.module import IRModule
from shlo.jax.importer import JaxModule, import_jax
from shlo.jax.profile import jax_flatten
from shlo.jax.trees import TreeError, flatten, unflatten
from shlo.runtime.loaded import LoadedModule


@dataclass(frozen=True)
class CompiledJax:
    """The import, the flattened module, the compiled `.vmfb` and the module loaded on a
    device; calling it runs @main on the leaves of its arguments."""

    imported: JaxModule
    module: IRModule
    compiled: Compiled
    loaded: LoadedModule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves = flatten(self.imported.in_tree, (args, kwargs))
        arrays = [_as_input(i, leaf, spec) for i, (leaf, spec) in
                  enumerate(zip(leaves, self.imported.inputs, strict=True))]  # fmt: skip
        return unflatten(self.imported.out_tree, self.loaded("main", *arrays))

    def __repr__(self) -> str:
        where = f"{self.compiled.target.value} on {self.loaded.device_name}"
        return f"<CompiledJax {self.imported.name} for {where}>"


def _as_input(index: int, leaf: Any, spec: dict[str, Any]) -> np.ndarray:
    """A leaf as the module takes it: of the exported shape, with JAX's width for its kind
    (JAX computes a float64 array in float32 unless 64-bit mode is on)."""
    array = np.asarray(leaf)
    expected = np.dtype(spec["dtype"]) if spec["dtype"] != "bfloat16" else array.dtype
    if list(array.shape) != spec["shape"]:
        raise TreeError(
            f"input {index} has shape {list(array.shape)}; the module takes {spec['shape']}"
        )
    if array.dtype != expected and array.dtype.kind != expected.kind:
        raise TreeError(f"input {index} is {array.dtype}; the module takes {expected}")
    return array.astype(expected, copy=False)


def compile_jax(
    fn: Any,
    *args: Any,
    kwargs: dict[str, Any] | None = None,
    target: Target | str = "llvm-cpu",
    device: str | None = None,
    cuda: str | None = None,
) -> CompiledJax:
    """Export `fn` at example `args` in JAX's child, flatten, compile for `target` and load on
    `device` (the target's default); the result is called like `fn`."""
    target = Target.get(target)
    imported = import_jax(fn, *args, kwargs=kwargs)
    module = jax_flatten(imported)
    compiled = compile_module(module, target, cuda=cuda)
    loaded = LoadedModule(compiled.vmfb, device or target.default_device)
    return CompiledJax(imported, module, compiled, loaded)
