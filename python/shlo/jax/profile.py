"""A JAX export flattened for IREE and the interpreter, at the shapes of given inputs.

    module = jax_flatten(imported)                 # the shapes it was exported at
    module = jax_flatten(imported, [x, y])         # symbolic dimensions refined to x's and y's
    module = flatten_export(module, ["tensor<4x3xf32>"])   # a JAX export's module, however got

Runs `shlo-jax-flatten` (passes/jax_flatten.py): one platform, static shapes, shape assertions
checked, one function, JAX's annotations dropped and its result names kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from shlo.errors import UsageError
from shlo.ir.module import IRModule
from shlo.jax.importer import JaxModule
from shlo.pipeline.run import run_pipeline
from shlo.pipeline.scripting import Pipeline
from shlo.runtime.value_syntax import type_spec


def input_types(imported: JaxModule, inputs: Sequence[Any] | None = None) -> list[str]:
    """@main's argument types: those of `inputs` (arrays or anything with a shape and a dtype,
    one per flat argument), else as exported, which must then be static."""
    if inputs is None:
        symbolic = [s for s in imported.inputs if not all(isinstance(d, int) for d in s["shape"])]
        if symbolic:
            raise UsageError(
                f"the export has symbolic shapes ({_shape(symbolic[0])}): give an input for each "
                "of its arguments"
            )
        inputs = [np.broadcast_to(np.zeros((), s["dtype"]), s["shape"]) for s in imported.inputs]
    if len(inputs) != len(imported.inputs):
        raise UsageError(f"the export takes {len(imported.inputs)} inputs, got {len(inputs)}")
    return [f"tensor<{type_spec(np.broadcast_to(np.zeros((), x.dtype), x.shape))}>" for x in inputs]


def _shape(spec: dict[str, Any]) -> str:
    return "x".join(map(str, spec["shape"])) + f"x{spec['dtype']}"


def jax_flatten(
    imported: JaxModule, inputs: Sequence[Any] | None = None, platform: str = "cpu"
) -> IRModule:
    """`imported`'s module as one flat function with static shapes, for `platform`."""
    return flatten_export(imported.module, input_types(imported, inputs), platform)


def flatten_export(module: IRModule, types: Sequence[str] = (), platform: str = "cpu") -> IRModule:
    """Any JAX export's module (from `jax.export` text, JAX's back-compatibility data, ...)
    flattened, its arguments refined to `types` (`tensor<4x8xf32>`; none: as they are)."""
    pipeline = Pipeline().add("shlo-jax-flatten", platform=platform, types=list(types))
    return run_pipeline(module, str(pipeline))
