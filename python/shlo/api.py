"""The Python entry points, gathered from the stages that define them.

    compiled = shlo.api.compile_torch(model, (x,), target="llvm-cpu")
    y = compiled(x)                       # same output structure as model(x)

Stages, in the order data flows: `import_model` (frontend) -> `flatten` / `run_pipeline`
(pipeline) -> `compile_module` (backend) -> `LoadedModule` (runtime).  JAX functions come in
through `import_jax` / `compile_jax`, with JAX in a child process of its own.  Importing this module
loads torch and both IREE wheels; scripts that only run pipelines import `shlo.pipeline.run`.
"""

from __future__ import annotations

from shlo.backend.compile import Compiled, compile_module
from shlo.backend.targets import DEVICES, HOST_DEVICES, Target
from shlo.errors import (
    CompileError,
    FrontendError,
    ParseError,
    PipelineRunError,
    RunError,
    ShloError,
)
from shlo.frontend.torch_import import Imported, import_model
from shlo.ir.load import load
from shlo.ir.module import IRModule, PrintOptions
from shlo.jax.compiled import CompiledJax, compile_jax
from shlo.jax.importer import JaxModule, import_jax
from shlo.pipeline.run import FLATTEN, flatten, run_pipeline
from shlo.runtime.loaded import LoadedModule, available_devices
from shlo.runtime.numerics import assert_close
from shlo.torch.compile_torch import compile_torch
from shlo.torch.compiled_model import CompiledModel
from shlo.torch.host_device import on_faster_host_device

__all__ = [
    "DEVICES",
    "FLATTEN",
    "HOST_DEVICES",
    "CompileError",
    "Compiled",
    "CompiledJax",
    "CompiledModel",
    "FrontendError",
    "IRModule",
    "Imported",
    "JaxModule",
    "LoadedModule",
    "ParseError",
    "PipelineRunError",
    "PrintOptions",
    "RunError",
    "ShloError",
    "Target",
    "assert_close",
    "available_devices",
    "compile_jax",
    "compile_module",
    "compile_torch",
    "flatten",
    "import_jax",
    "import_model",
    "load",
    "on_faster_host_device",
    "run_pipeline",
]
