"""The Python entry points: one call for the common case, and each stage on its own.

    compiled = shlo.api.compile_torch(model, (x,), target="llvm-cpu")
    y = compiled(x)                       # same output structure as model(x)

Stages, in the order data flows: `import_model` (frontend) -> `flatten` / `run_pipeline`
(pipeline) -> `compile_module` (backend) -> `LoadedModule` (runtime).
"""

from __future__ import annotations

import functools
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import torch

from shlo.backend import Compiled, Target, compile_bytecode
from shlo.diagnostics import format_all
from shlo.frontend import Imported, import_model
from shlo.ir_io import IRModule, PrintOptions, constant_value
from shlo.parameters import externalize, write_archive
from shlo.pipeline import Contexts, PipelineFailed, RunOptions, run_segments
from shlo.pipeline_syntax import parse_pipeline
from shlo.planner import plan
from shlo.runtime import LoadedModule
from shlo.timing import median_ms
from shlo.world import ContextPolicy

FLATTEN = "builtin.module(inline, symbol-dce, canonicalize)"
# Rewrites that steer around iree-compile 3.13 failures and slow paths, run on a copy before
# compiling.
IREE_PREPARE = "builtin.module(shlo-narrow-sort-indices, shlo-patchify-convolutions)"
# Dynamic shapes: torch-mlir's shape computations in StableHLO, then the broadcast dims they
# prove cannot expand, which IREE needs to lower dynamic_broadcast_in_dim.
IREE_PREPARE_DYNAMIC = (
    "builtin.module(func.func(shape-legalize-to-stablehlo), reconcile-unrealized-casts, "
    "canonicalize, shlo-annotate-broadcasts, shlo-narrow-sort-indices, shlo-patchify-convolutions)"
)


class PipelineRunError(RuntimeError):
    """A pipeline failed on a module; the message holds MLIR's diagnostics."""


def run_pipeline(
    module: IRModule,
    pipeline: str,
    *,
    threading: bool = True,
    options: RunOptions | None = None,
) -> IRModule:
    """Run a textual pipeline (passes of any world, Python passes too) on a module."""
    anchored = parse_pipeline(pipeline)
    contexts = Contexts(ContextPolicy(threading=threading))
    try:
        segments = plan(anchored.name, list(anchored.nested or ()), contexts)
        return run_segments(module, segments, contexts, options or RunOptions())
    except PipelineFailed as failure:
        raise PipelineRunError(
            f"pipeline segment {failure.segment} failed:\n"
            + format_all(failure.diagnostics, {}).rstrip()
        ) from None
    finally:
        contexts.close()


def flatten(module: IRModule) -> IRModule:
    """Inline every call, drop dead functions, canonicalize: one function, as consumers want."""
    return run_pipeline(module, FLATTEN)


def compile_module(
    module: IRModule,
    target: Target | str = "llvm-cpu",
    *,
    cuda: str | None = None,
    extra_flags: tuple[str, ...] = (),
    use_cache: bool = False,
    parameters: str | Path | None = None,
    weights: dict[str, torch.Tensor] | None = None,
) -> Compiled:
    """Compile to a `.vmfb`; `module` itself is left as it was.  `use_cache` reuses an
    identical earlier compile (shlo.cache: in memory, then on disk).

    `parameters` keeps the weights in that .irpa archive, not the .vmfb: with `weights` (from
    `import_model(..., weights="external")`, @main's leading arguments) the archive is written
    from those tensors and they never enter the IR; without, the module's own constants are
    exported during compilation.

    f64 is kept when the public functions take or return it (IREE would demote it to f32; on
    Vulkan, math functions SPIR-V lacks in f64 run in f32, with a warning); f64 that only the
    importer introduced inside the program (torch-mlir's layer norm epsilon) is demoted.
    """
    if weights is not None and parameters is None:
        raise ValueError("weights kept out of the IR need an archive: give parameters=PATH")
    dynamic = "?" in _interface(module)
    prepared = run_pipeline(module, IREE_PREPARE_DYNAMIC if dynamic else IREE_PREPARE)
    target = Target.get(target)
    keep_f64 = _interface_uses(prepared, "f64")
    if keep_f64 and target is Target.VULKAN:
        prepared = _f64_math_in_f32(prepared)
    flags = (*_workaround_flags(prepared, target, extra_flags, keep_f64), *extra_flags)
    if weights is not None:
        externalize(prepared, list(weights))
        # IREE's parameter attributes are unregistered here: iree-compile reads them as text.
        source = prepared.text(PrintOptions(debug_info=True)).encode()
        return compile_bytecode(
            source,
            target,
            cuda=cuda,
            extra_flags=flags,
            keep_f64=keep_f64,
            parameters=parameters,
            write_weights=functools.partial(write_archive, weights),
        )
    identity = run_pipeline(prepared, "builtin.module(strip-debuginfo)") if use_cache else None
    return compile_bytecode(
        prepared.to_bytecode(),
        target,
        cuda=cuda,
        extra_flags=flags,
        keep_f64=keep_f64,
        cache_as=identity.to_bytecode() if identity else None,
        parameters=parameters,
    )


# IREE 3.13's bf16 emulation converts a dispatch's types but not the bf16 dense_resource
# constants inlined into it ("'arith.constant' op failed to verify"); not inlining avoids it.
_NO_CONSTANT_INLINING = "--iree-flow-inline-constants-max-byte-length=0"
# IREE's default Vulkan target has no Int64 (a causal mask's index arithmetic fails to
# legalize); computing inside in i32 works when no i64 crosses the interface.
_DEMOTE_I64 = "--iree-input-demote-i64-to-i32"
# IREE's default Vulkan target (VP_ANDROID_baseline_2022) has no 16-bit or 64-bit floats.  Its
# f16 emulation computes wrong numbers (an f16 add is off, tanh gives 0), and f64 is demoted:
# f16 programs ask for 16-bit storage and arithmetic, programs whose interface is f64 for f64
# arithmetic, which desktop drivers and lavapipe have.
_VULKAN_BASE = ("spirv:v1.3", "cap:Shader")
_VULKAN_F16 = ("cap:Float16", "cap:StorageBuffer16BitAccess", "ext:SPV_KHR_16bit_storage")
_VULKAN_F64 = ("cap:Float64",)


def _workaround_flags(
    module: IRModule, target: Target, extra_flags: tuple[str, ...], keep_f64: bool
) -> list[str]:
    """iree-compile flags this module needs to steer around known IREE 3.13 failures;
    `keep_f64`: its interface is f64, which stays f64."""
    uses = _types_used(module)
    flags = []
    if target is Target.VULKAN and not _interface_uses(module, "i64"):
        flags.append(_DEMOTE_I64)
    features = [
        *(_VULKAN_F16 if "f16" in uses else ()),
        *(_VULKAN_F64 if keep_f64 else ()),
    ]
    vulkan_target_given = any(flag.startswith("--iree-vulkan-target") for flag in extra_flags)
    if target is Target.VULKAN and features and not vulkan_target_given:
        features = sorted(features, key=lambda feature: feature.startswith("ext:"))
        flags.append(f"--iree-vulkan-target-features={','.join((*_VULKAN_BASE, *features))}")
    if "bf16 constant" in uses:
        flags.append(_NO_CONSTANT_INLINING)
    return flags


def _f64_math_in_f32(module: IRModule) -> IRModule:
    """Vulkan (SPIR-V) has no f64 exp, log, tanh, sin or pow: those run in f32, the rest of an
    f64 program in f64.  Says so, since their results then carry f32's precision."""
    from shlo.passes.f64_math_in_f32 import f64_math

    names = sorted({op.name for op in f64_math(module)})
    if not names:
        return module
    warnings.warn(
        f"Vulkan has no f64 {', '.join(name.split('.')[1] for name in names)}: computed in f32 "
        "(relative error near 1e-7), the rest in f64; compile for llvm-cpu for f64 throughout",
        stacklevel=3,
    )
    return run_pipeline(module, "builtin.module(shlo-f64-math-in-f32)")


def _types_used(module: IRModule) -> set[str]:
    """Which of the element types the workarounds care about the module computes with:
    "f16" (any op result) and "bf16 constant" (a bf16 dense_resource constant)."""
    ir = module.world.ir
    found: set[str] = set()

    def visit(op: Any) -> Any:
        if any(_mentions(str(result.type), "f16") for result in op.results):
            found.add("f16")
        value = constant_value(op)
        if value is not None:
            try:  # attributes come back undowncast: the cast is the type test
                resource = ir.DenseResourceElementsAttr(value)
            except ValueError:
                return ir.WalkResult.ADVANCE
            if str(resource.type).endswith("xbf16>"):
                found.add("bf16 constant")
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _interface(module: IRModule) -> str:
    """The types the public functions take and return, as text."""
    return " ".join(
        str(op.attributes["function_type"])
        for op in module.operation.regions[0].blocks[0].operations
        if "function_type" in op.attributes and "sym_visibility" not in op.attributes
    )


def _interface_uses(module: IRModule, element_type: str) -> bool:
    """Whether a public function takes or returns `element_type` (f64, i64) anywhere."""
    return _mentions(_interface(module), element_type)


def _mentions(types: str, element_type: str) -> bool:
    """Whether type text names `element_type` itself (`tensor<4xf16>`, `f16`; not `bf16`)."""
    return re.search(rf"(?:^|[^a-z0-9]|[0-9?]x){element_type}\b", types) is not None


def _to_numpy(value: Any) -> Any:
    """Tensors as numpy; bfloat16 (which numpy lacks) as ml_dtypes.bfloat16, bit for bit.

    A Python int (a symbolic size torch.export kept as an input) becomes a 0-d int64 array.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return np.asarray(value, dtype=np.int64)
    if not isinstance(value, torch.Tensor):
        return value
    value = value.detach().cpu().contiguous()
    if value.dtype == torch.bfloat16:
        return value.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return value.numpy()


def _to_torch(value: np.ndarray) -> torch.Tensor:
    if value.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(value.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.asarray(value))


@dataclass
class CompiledModel:
    """A compiled model on a device, called like the model it came from."""

    imported: Imported
    compiled: Compiled
    loaded: LoadedModule

    def __post_init__(self) -> None:
        self._invoke = self.loaded.invoker(self.imported.function)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            not kwargs
            and len(args) == self.imported.positional_count
            and all(map(_plain_tensor, args))
        ):
            # torch.compile's graphs and most models: CPU tensors in, positionally.
            outputs = self._invoke([arg.detach().numpy() for arg in args])
            return self.imported.unflatten_outputs([torch.from_numpy(o) for o in outputs])
        leaves = self.imported.flatten_inputs(args, kwargs)
        outputs = self.loaded(self.imported.function, *[_to_numpy(leaf) for leaf in leaves])
        if any(isinstance(leaf, torch.Tensor) for leaf in leaves):
            outputs = [_to_torch(o) for o in outputs]
        return self.imported.unflatten_outputs(outputs)


def _plain_tensor(value: Any) -> bool:
    return type(value) is torch.Tensor and value.is_cpu and value.dtype != torch.bfloat16


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
) -> CompiledModel:
    """Import, flatten, compile and load `model` on example inputs; returns a callable.
    `parameters`: the weights go to that .irpa archive, never entering the IR.  `device`: by
    default the target's; for llvm-cpu the faster of local-task and local-sync on `args`."""
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
    )
    loaded = LoadedModule(compiled.vmfb, device or target.default_device, parameters)
    chosen = CompiledModel(imported, compiled, loaded)
    if device is None and target is Target.LLVM_CPU:
        chosen = on_faster_host_device(chosen, args, kwargs or {}, parameters)
    return chosen


HOST_DEVICES = ("local-task", "local-sync")
# A call this long on the thread pool is mostly compute, which the pool parallelizes: its cost
# of about 17 us a dispatch (measured here) would take a thousand dispatches to add up to it.
_POOL_WINS_MS = 20.0


def on_faster_host_device(
    compiled: CompiledModel,
    args: tuple,
    kwargs: dict,
    parameters: str | Path | None = None,
) -> CompiledModel:
    """llvm-cpu code runs on one thread (local-sync) or a thread pool (local-task).  On a small
    graph the pool's wake-ups cost more than it saves (an MLP: 0.07 ms on local-task, 0.02 ms
    on local-sync), so both are timed on the example inputs and the faster one is kept; a call
    over 20 ms on the pool stays there untimed."""
    with torch.no_grad():
        on_pool = compiled.loaded.device_name == "local-task"
        if on_pool and median_ms(lambda: compiled(*args, **kwargs), 1, 1) > _POOL_WINS_MS:
            return compiled
        candidates = [compiled] + [
            CompiledModel(
                compiled.imported,
                compiled.compiled,
                LoadedModule(compiled.compiled.vmfb, d, parameters),
            )
            for d in HOST_DEVICES
            if d != compiled.loaded.device_name
        ]
        best: dict[int, float] = {}
        for _ in range(3):  # interleaved rounds: one slow moment does not decide
            for index, candidate in enumerate(candidates):
                time = median_ms(lambda c=candidate: c(*args, **kwargs), runs=5, warmup=1)
                best[index] = min(best.get(index, time), time)
    return candidates[min(best, key=best.__getitem__)]
