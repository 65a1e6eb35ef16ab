"""The ops the pinned StableHLO interpreter cannot evaluate, and the way out for each.

The interpreter binding aborts the whole process on such an op, so shlo names them first
(`shlo-check-support{target=interpreter}`, shlo-translate's errors); each entry is run in
tests/lit/translate/unsupported_ops.mlir.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.check_dialect import STAND_IN, check_kind
from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir

_UNFUSE_BATCH_NORM = "func.func(iree-stablehlo-preprocessing-unfuse-batch-norm)"
_DEPRECATED = "func.func(stablehlo-legalize-deprecated-ops)"
# Ops the pinned interpreter cannot evaluate, with a pipeline that rewrites each into ops the
# interpreter has, where the pinned wheels have one.
UNSUPPORTED: dict[str, str | None] = {
    "stablehlo.batch_norm_inference": _UNFUSE_BATCH_NORM,
    "stablehlo.batch_norm_training": _UNFUSE_BATCH_NORM,
    "stablehlo.dot": _DEPRECATED,
    "stablehlo.broadcast": _DEPRECATED,
    "stablehlo.create_token": _DEPRECATED,
    **dict.fromkeys(
        f"stablehlo.{op}"
        for op in (
            "batch_norm_grad cholesky einsum unary_einsum torch_index_select rng "
            "rng_bit_generator real_dynamic_slice custom_call"
        ).split()
    ),
}
_CHLO = "func.func(chlo-legalize-to-stablehlo)"
# Evaluated only inside `interpreter.run_parallel`, which gives them a process grid.
PARALLEL_ONLY = {
    f"stablehlo.{op}"
    for op in (
        "all_gather all_reduce all_to_all collective_broadcast collective_permute "
        "collective_reduce reduce_scatter partition_id replica_id"
    ).split()
}
_EVALUATED_DIALECTS = ("stablehlo.", "func.", "interpreter.", "check.", STAND_IN, "builtin.")


def unsupported_reason(name: str) -> str | None:
    """Why the interpreter cannot run op `name`, and the way out where there is one."""
    if name in UNSUPPORTED or name.startswith("chlo."):
        pipeline = _CHLO if name.startswith("chlo.") else UNSUPPORTED[name]
        way_out = (
            f"; decompose it first with shlo-opt --pass-pipeline='builtin.module({pipeline})'"
            if pipeline
            else ""
        )
        return f"the interpreter does not support {name}{way_out}"
    if name in PARALLEL_ONLY:
        return f"{name} runs only under interpreter.run_parallel"
    if not name.startswith(_EVALUATED_DIALECTS):
        return f"the interpreter evaluates only StableHLO and func ops, not {name}"
    return None


def unsupported_ops(operation: Any) -> list[tuple[Any, str]]:
    """(op, reason) for each op under `operation` the interpreter cannot evaluate."""
    found = []
    for op in ops_in(operation):
        name = op.name
        if name == "stablehlo.custom_call" and check_kind(op):
            continue
        if name == "arith.constant" and isinstance(op.results[0].type, ir.RankedTensorType):
            continue  # shlo turns these into stablehlo.constant first
        if name != "func.func" and (reason := unsupported_reason(name)):
            found.append((op, reason))
    return found
