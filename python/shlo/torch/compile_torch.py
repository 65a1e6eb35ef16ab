"""The whole path in one call: a PyTorch model in, a callable that runs it with IREE out.

compiled = compile_torch(model, (x,), target="llvm-cpu")
y = compiled(x)                       # same output structure as model(x)
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import torch

from shlo.backend.compile import compile_module
from shlo.backend.targets import Target
from shlo.errors import FrontendError
from shlo.frontend.torch_import import as_module, import_model
from shlo.pipeline.run import flatten
from shlo.runtime.loaded import LoadedModule
from shlo.torch.compiled_model import CompiledModel
from shlo.torch.host_device import on_faster_host_device

# Models with at least this many bytes of weights compile for llvm-cpu with their weights in a
# parameter archive of their own unless told where: iree-compile then never holds them, and
# the loaded module maps the archive instead of keeping the .vmfb's copy beside the packed one.
AUTO_ARCHIVE_BYTES = 256 * 2**20


def compile_torch(
    model: torch.nn.Module | Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any] | None = None,
    *,
    target: Target | str = "llvm-cpu",
    device: str | None = None,
    dynamic_shapes: Any = None,
    cuda: str | None = None,
    use_cache: bool = False,
    parameters: str | Path | None = None,
    keep_temps: str | Path | None = None,
) -> CompiledModel:
    """Import, flatten, compile and load `model` (a module or a function) on example inputs;
    returns a callable.
    `parameters`: the weights go to that .irpa archive, never entering the IR.  Without it, a
    model in eval mode with `AUTO_ARCHIVE_BYTES` of weights or more compiled for llvm-cpu
    (and not from the cache) gets an archive in a private temporary folder, removed with the
    last model loaded from it (`compiled.parameters` names it; the `.vmfb` alone then has no
    weights).
    `device`: by default the target's; for llvm-cpu the faster of local-task and local-sync
    on `args`.  `keep_temps`: a folder that keeps iree-compile's exact input and outputs,
    which `compiled.compiled.command_line()` names."""
    target = Target.get(target)
    model = as_module(model)
    owns = None
    if parameters is None and target is Target.LLVM_CPU and not use_cache and _large(model):
        owns = tempfile.TemporaryDirectory(prefix="shlo-weights-")
        parameters = Path(owns.name) / "weights.irpa"
    weights = "external" if parameters is not None else "inline"
    try:
        imported = import_model(model, args, kwargs, dynamic_shapes=dynamic_shapes, weights=weights)
    except FrontendError:
        if owns is None:
            raise
        # what an archive cannot hold (a buffer the model updates as it runs) stays inline
        owns.cleanup()
        owns = parameters = None
        imported = import_model(model, args, kwargs, dynamic_shapes=dynamic_shapes)
    imported.module = flatten(imported.module)
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
    archive = Path(parameters) if parameters is not None else None
    chosen = CompiledModel(imported, compiled, loaded, archive, owns)
    if device is None and target is Target.LLVM_CPU:
        chosen = on_faster_host_device(chosen, args, kwargs or {})
    return chosen


def _large(model: torch.nn.Module) -> bool:
    """Whether `model`'s weights go to an archive of its own: in eval mode (a module in
    training mode may update its buffers, which an archive cannot take) and with
    `AUTO_ARCHIVE_BYTES` of state or more."""
    if any(module.training for module in model.modules()):
        return False
    return cast(bool, sum(t.nbytes for t in model.state_dict().values()) >= AUTO_ARCHIVE_BYTES)
