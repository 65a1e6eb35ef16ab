"""The whole path in one call: a PyTorch model in, a callable that runs it with IREE out.

compiled = compile_torch(model, (x,), target="llvm-cpu")
y = compiled(x)                       # same output structure as model(x)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from shlo.backend.compile import compile_module
from shlo.backend.targets import Target
from shlo.frontend.torch_import import import_model
from shlo.pipeline.run import flatten
from shlo.runtime.compiled_model import CompiledModel
from shlo.runtime.host_device import on_faster_host_device
from shlo.runtime.loaded import LoadedModule


def compile_torch(
    model: torch.nn.Module,
    args: tuple,
    kwargs: dict | None = None,
    *,
    target: Target | str = "llvm-cpu",
    device: str | None = None,
    dynamic_shapes: Any = None,
    cuda: str | None = None,
    use_cache: bool = False,
    parameters: str | Path | None = None,
    keep_temps: str | Path | None = None,
) -> CompiledModel:
    """Import, flatten, compile and load `model` on example inputs; returns a callable.
    `parameters`: the weights go to that .irpa archive, never entering the IR.  `device`: by
    default the target's; for llvm-cpu the faster of local-task and local-sync on `args`.
    `keep_temps`: a folder that keeps iree-compile's exact input and outputs, which
    `compiled.compiled.command_line()` names."""
    weights = "external" if parameters is not None else "inline"
    imported = import_model(model, args, kwargs, dynamic_shapes=dynamic_shapes, weights=weights)
    imported.module = flatten(imported.module)
    target = Target.get(target)
    compiled = compile_module(
        imported.module,
        target,
        cuda=cuda,
        use_cache=use_cache,
        parameters=parameters,
        weights=imported.weights,
        keep_temps=keep_temps,
    )
    loaded = LoadedModule(compiled.vmfb, device or target.default_device, parameters)
    chosen = CompiledModel(imported, compiled, loaded)
    if device is None and target is Target.LLVM_CPU:
        chosen = on_faster_host_device(chosen, args, kwargs or {}, parameters)
    return chosen
