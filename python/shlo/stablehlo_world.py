"""The StableHLO world: torch-mlir's MLIR bindings with StableHLO, CHLO and VHLO.

The only module that imports torch-mlir's IR bindings; Python passes take `ir` and `rewrite`
(pattern sets, PDL, greedy and dialect-conversion drivers) from here.
"""

from __future__ import annotations

from torch_mlir import ir, passmanager, rewrite
from torch_mlir._mlir_libs import _stablehlo

from shlo.world import ContextPolicy, World

_stablehlo.register_stablehlo_passes()

# `register_dialect` loads only `stablehlo`; these passes declare `chlo` and `vhlo` as dependent
# dialects, so running them once on an empty module loads both and they parse from then on.
_LOAD_DIALECTS = (
    "builtin.module(func.func(stablehlo-complex-math-expander), stablehlo-legalize-to-vhlo)"
)


def make_context(policy: ContextPolicy) -> ir.Context:
    """A context that parses StableHLO, CHLO, VHLO and every upstream dialect, as mlir-opt would."""
    context = ir.Context()
    _stablehlo.register_dialect(context)
    context.allow_unregistered_dialects = policy.allow_unregistered_dialects
    context.enable_multithreading(policy.threading)
    with context, ir.Location.unknown():
        passmanager.PassManager.parse(_LOAD_DIALECTS).run(ir.Module.create().operation)
    return context


def stablehlo_version() -> str:
    """The StableHLO version these bindings produce (the VHLO `current`)."""
    return _stablehlo.get_current_version()


WORLD = World("stablehlo", ir, passmanager, make_context)
__all__ = ["WORLD", "ir", "make_context", "passmanager", "rewrite", "stablehlo_version"]
