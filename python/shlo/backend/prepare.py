"""A module made ready for iree-compile: the rewrites that steer around IREE 3.13's failures
and slow paths, run on a copy, and the facts about it that decide the compile flags."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, cast

from shlo.backend.flags import ModuleFacts, keeps_f64
from shlo.backend.targets import Target
from shlo.errors import CompileError
from shlo.ir.diagnostics import location_text
from shlo.ir.iree_gaps import F32_ONLY, LIBM_ONLY, LIMIT, f64_math, long_rows
from shlo.ir.module import IRModule, constant_value
from shlo.pipeline.run import run_pipeline

# The passes every module gets before iree-compile, those for dynamic shapes and those per
# target: each pass's docstring says which IREE failure it steers around, and
# docs/iree-workarounds.md lists them all with the test that pins each.
IREE_PREPARE = (
    "shlo-empty-contractions",
    "shlo-empty-scatters",
    "shlo-top-k-as-sort",
    "shlo-stable-sort",
    "shlo-narrow-sort-indices",
    "shlo-narrow-scatter-indices",
    "shlo-own-sort-operands",
    "shlo-boolean-add-as-or",
    "shlo-unsigned-shift-right-logical",
    "shlo-trim-window-tails",
    "shlo-split-weighted-reductions",
    "shlo-channels-last",
    "shlo-patchify-convolutions",
    "shlo-accumulate-in-f32",
    "shlo-hashed-rng",
    "shlo-atan2-edge-cases",
    "shlo-power-edge-cases",
    "shlo-exp-overflow",
    "shlo-trig-range-reduction{types=f16,bf16,f32}",
    "shlo-shield-returned-arguments",
)
DYNAMIC_SHAPES = (
    "func.func(shape-legalize-to-stablehlo)",
    "reconcile-unrealized-casts",
    "canonicalize",
    "shlo-annotate-broadcasts",
)
# torch-mlir computes var and std in f64 for precision; IREE's demotion to f32 made the
# variance of 8M values near 100 come out 0.1995 instead of 0.0833.  From this many summed
# elements, f64 is kept.
LONG_SUM = 2**16
LLVM_CPU_ONLY = (
    "shlo-pad-attention-keys",
    "shlo-trig-range-reduction{types=f64}",
    "shlo-barrier-reduced-batched-operands",
    "shlo-barrier-boolean-consumers",
)
VULKAN_ONLY = (
    "shlo-split-grouped-convolutions",
    "shlo-inline-resources{element-types=i64}",
    "shlo-own-f64-converts",
    "shlo-split-long-reductions",
    "shlo-barrier-dequantized-operands",
    "shlo-scatter-not-unique",
)


def prepare(module: IRModule, target: Target) -> tuple[IRModule, ModuleFacts]:
    """A rewritten copy of `module` for `target` (the module itself is left as it was) and
    the facts the flag rule needs.

    f64 is kept when the public functions take or return it, or when the program sums many
    elements in f64; math functions the target lacks in f64 then run in f32, with a
    warning.  On llvm-cpu, attention's keys are padded to a multiple of 16, and f64 sine,
    cosine and tan have their arguments reduced exactly as the other float types do.  On Vulkan,
    grouped convolutions are split into one per group, i64 constants are taken out of
    resource blobs, long reductions are split, scatters lose their unique-indices promise,
    and reductions of rows longer than Vulkan computes right are refused."""
    passes = (
        *(DYNAMIC_SHAPES if "?" in _interface(module) else ()),
        *IREE_PREPARE,
        *(LLVM_CPU_ONLY if target is Target.LLVM_CPU else ()),
        *(VULKAN_ONLY if target is Target.VULKAN else ()),
    )
    prepared = run_pipeline(module, f"builtin.module({', '.join(passes)})")
    if target is Target.VULKAN:
        _refuse_long_rows(prepared)
    facts = module_facts(prepared)
    if keeps_f64(target, facts):
        prepared = _f64_math_in_f32(prepared, target)
    else:
        prepared = run_pipeline(prepared, "builtin.module(shlo-round-f64-constants)")
    return prepared, facts


def _refuse_long_rows(module: IRModule) -> None:
    """IREE's Vulkan target combines at most 65,535 elements into one result of a reduction,
    a scan or an argmax, and returns wrong numbers with no error beyond that: what
    `shlo-split-long-reductions` could not split is refused."""
    found = long_rows(module)
    if found:
        op, length = found[0]
        raise CompileError(
            f"{location_text(op.location)}: {op.name} combines {length:,} elements into each "
            f"result; IREE's Vulkan target computes only {LIMIT:,} of them (wrong numbers, no "
            "error), so shlo refuses it: compile for llvm-cpu"
        )


def module_facts(module: IRModule) -> ModuleFacts:
    """What the flag rule asks of `module`, found in one walk and its signature."""
    interface = _interface(module)
    found = _types_used(module)
    return ModuleFacts(
        interface_f64=_mentions(interface, "f64"),
        interface_i64=_mentions(interface, "i64"),
        computes_f16="f16" in found or _mentions(interface, "f16"),
        computes_8bit=any(t in found or _mentions(interface, t) for t in _8BIT),
        computes_16bit=any(t in found or _mentions(interface, t) for t in _16BIT),
        bf16_constants="bf16 constant" in found,
        long_f64_sums="long f64 sum" in found,
        rng_state="rng" in found,
    )


def _f64_math_in_f32(module: IRModule, target: Target) -> IRModule:
    """Math functions `target` has no f64 code for (IREE 3.13: SPIR-V has none of them, and
    llvm-cpu lacks the libm ones) run in f32, the rest of an f64 program in f64.  Says so,
    since their results then carry f32's precision."""
    names = {Target.VULKAN: F32_ONLY, Target.LLVM_CPU: LIBM_ONLY}.get(target, ())
    found = sorted({op.name for op in f64_math(module, names)})
    if not found:
        return module
    warnings.warn(
        f"IREE's {target.value} target has no f64 "
        f"{', '.join(name.split('.')[1] for name in found)}: computed in f32 (relative error "
        "near 1e-7), the rest in f64",
        stacklevel=4,
    )
    return run_pipeline(module, f"builtin.module(shlo-f64-math-in-f32{{ops={','.join(names)}}})")


_8BIT = ("i1", "i8", "ui8")
_16BIT = ("i16", "ui16", "bf16")


def _types_used(module: IRModule) -> set[str]:
    """The element types of op results among f16 and those of `_8BIT` and `_16BIT`, with
    "bf16 constant" for a bf16 dense_resource constant, "long f64 sum" for an f64 reduction
    over `LONG_SUM` elements or more, and "rng" for an `rng_bit_generator`."""
    ir = module.world.ir
    found: set[str] = set()

    def visit(op: Any) -> Any:
        for result in op.results:
            text = str(result.type)
            found.update(kind for kind in ("f16", *_8BIT, *_16BIT) if _mentions(text, kind))
        if op.name == "stablehlo.reduce" and _long_f64_sum(op):
            found.add("long f64 sum")
        if op.name == "stablehlo.rng_bit_generator":
            found.add("rng")
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


def _long_f64_sum(reduce: Any) -> bool:
    """An f64 reduction over `LONG_SUM` elements or more of a static shape."""
    shaped = reduce.operands[0].type
    if "f64" not in str(shaped) or not shaped.has_static_shape:
        return False
    return cast(
        bool, math.prod(shaped.shape[dim] for dim in reduce.attributes["dimensions"]) >= LONG_SUM
    )


def _interface(module: IRModule) -> str:
    """The types the public functions take and return, as text (a function is public unless
    its `sym_visibility` says otherwise; JAX spells it out)."""
    return " ".join(
        str(op.attributes["function_type"])
        for op in module.operation.regions[0].blocks[0].operations
        if "function_type" in op.attributes and _public(op)
    )


def _public(function: Any) -> bool:
    if "sym_visibility" not in function.attributes:
        return True
    return str(function.attributes["sym_visibility"]) == '"public"'


def _mentions(types: str, element_type: str) -> bool:
    """Whether type text names `element_type` itself (`tensor<4xf16>`, `f16`; not `bf16`)."""
    return re.search(rf"(?:^|[^a-z0-9]|[0-9?]x){element_type}\b", types) is not None
