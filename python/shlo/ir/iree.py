"""The IREE world: the MLIR bindings inside iree-base-compiler, with IREE's dialects and passes.

The only module that imports IREE's IR bindings.
"""

from __future__ import annotations

from shlo.ir.deferred_numpy import numpy_on_first_use

with numpy_on_first_use():
    from iree.compiler import ir, passmanager

from shlo.ir.worlds import ContextPolicy, World


def make_context(policy: ContextPolicy) -> ir.Context:
    """A context with IREE's dialects (StableHLO, CHLO and VHLO included) and passes."""
    context = ir.Context()
    context.allow_unregistered_dialects = policy.allow_unregistered_dialects
    context.enable_multithreading(policy.threading)
    return context


WORLD = World("iree", ir, passmanager, make_context)
