"""Portable artifacts on jaxlib's side, in JAX's child process: Shardy's attributes dropped,
and, where jaxlib cannot write a module for an older StableHLO, the op that needs a newer one
and the version that introduced it.
"""

from __future__ import annotations

import re
from typing import Any


def newer_op(text: str, version: str) -> str:
    """Why `text` cannot be written for StableHLO `version`: the first op that needs a newer
    one, and the oldest version that holds it as written (found by trying the versions)."""
    first = _illegal_op(text, version)
    if first is None or first == "?":
        return "jaxlib could not write it as a portable artifact"
    from jaxlib.mlir.dialects import stablehlo

    current = tuple(int(p) for p in stablehlo.get_current_version().split("."))
    low = tuple(int(p) for p in version.split("."))
    candidates = [
        f"{current[0]}.{minor}.{patch}"
        for minor in range(low[1], current[1] + 1)
        for patch in range(32)
        if low < (current[0], minor, patch) <= current
    ]
    if not candidates:
        return f"{first} is not legal at StableHLO {version}"
    lo, hi = 0, len(candidates) - 1
    while lo < hi:  # the op is legal from its first version on
        mid = (lo + hi) // 2
        if _illegal_op(text, candidates[mid]) == first:
            lo = mid + 1
        else:
            hi = mid
    name = "stablehlo." + first.removeprefix("vhlo.").rsplit("_v", 1)[0]
    return f"{name} ({first}) was introduced in StableHLO {candidates[lo]}"


def _illegal_op(text: str, version: str) -> str | None:
    """The VHLO op that `vhlo-to-version` first fails on at `version`, or None."""
    from jax.interpreters import mlir
    from jaxlib.mlir import ir, passmanager
    from jaxlib.mlir.dialects import stablehlo

    stablehlo.register_stablehlo_passes()
    pipeline = f"builtin.module(stablehlo-legalize-to-vhlo, vhlo-to-version{{target={version}}})"
    with mlir.make_ir_context():
        module = ir.Module.parse(text)
        try:
            passmanager.PassManager.parse(pipeline).run(module.operation)
        except ir.MLIRError as error:
            for diagnostic in error.error_diagnostics:
                if found := re.search(r"operation '(vhlo\.[\w.]+)'", str(diagnostic.message)):
                    return found.group(1)
            return "?"
    return None


def without_sharding(text: str) -> str:
    """`text` without Shardy's `sdy.*` op attributes (sharding rules on custom calls), which
    say nothing for one device and which no portable artifact holds."""
    from jax.interpreters import mlir
    from jaxlib.mlir import ir

    with mlir.make_ir_context():
        module = ir.Module.parse(text)

        def strip(op: Any) -> Any:
            for name in [name for name in op.attributes if name.startswith("sdy.")]:
                del op.attributes[name]
            return ir.WalkResult.ADVANCE

        module.operation.walk(strip)
        return str(module.operation.get_asm(enable_debug_info=True))
