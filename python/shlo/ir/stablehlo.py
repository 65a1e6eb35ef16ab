"""The StableHLO world: torch-mlir's MLIR bindings with StableHLO, CHLO and VHLO.

The only module that imports torch-mlir's IR bindings; Python passes take `ir` and `rewrite`
(pattern sets, PDL, greedy and dialect-conversion drivers) from here.
"""

from __future__ import annotations

from typing import cast

from shlo.ir.deferred_numpy import numpy_on_first_use

with numpy_on_first_use():
    from torch_mlir import ir, passmanager, rewrite
    from torch_mlir._mlir_libs import _stablehlo

from shlo.ir.worlds import ContextPolicy, World

_stablehlo.register_stablehlo_passes()

# `register_dialect` loads only `stablehlo`; these passes declare `chlo` and `vhlo` as dependent
# dialects, so running them once on an empty module loads both and they parse from then on.
_LOAD_DIALECTS = (
    "builtin.module(func.func(stablehlo-complex-math-expander), stablehlo-legalize-to-vhlo)"
)


def make_context(policy: ContextPolicy) -> ir.Context:
    """A context that parses StableHLO, CHLO, VHLO, the interpreter dialect and every upstream
    dialect, as stablehlo-opt would."""
    context = ir.Context()
    _stablehlo.register_dialect(context)
    _stablehlo.register_interpreter_dialect(context)
    context.allow_unregistered_dialects = policy.allow_unregistered_dialects
    context.enable_multithreading(policy.threading)
    with context, ir.Location.unknown():
        passmanager.PassManager.parse(_LOAD_DIALECTS).run(ir.Module.create().operation)
    return context


# StableHLO's attribute views, for passes that read dimension numbers.
ConvDimensionNumbers = _stablehlo.ConvDimensionNumbers
DotDimensionNumbers = _stablehlo.DotDimensionNumbers
ScatterDimensionNumbers = _stablehlo.ScatterDimensionNumbers


def stablehlo_version() -> str:
    """The StableHLO version these bindings produce (the VHLO `current`)."""
    return cast(str, _stablehlo.get_current_version())


def minimum_version() -> str:
    """The oldest StableHLO version these bindings can write a portable artifact for."""
    return cast(str, _stablehlo.get_minimum_version())


def serialize(module: ir.Module, target: str, allow_other_dialects: bool) -> bytes:
    """A portable artifact (VHLO bytecode) of `module` for StableHLO version `target`."""
    return cast(bytes, _stablehlo.serialize_portable_artifact(module, target, allow_other_dialects))


def deserialize(context: ir.Context, artifact: bytes) -> ir.Module:
    return _stablehlo.deserialize_portable_artifact(context, artifact)


def evaluate(
    module: ir.Module, arguments: list[ir.Attribute], probe_dir: str = ""
) -> list[ir.Attribute]:
    """The reference interpreter on `@main`; callers check arguments first (it aborts).

    `interpreter.probe` ops write their values under `probe_dir`."""
    return cast("list[ir.Attribute]", _stablehlo.eval_module(module, arguments, probe_dir))


WORLD = World("stablehlo", ir, passmanager, make_context)
__all__ = [
    "WORLD",
    "ConvDimensionNumbers",
    "DotDimensionNumbers",
    "ScatterDimensionNumbers",
    "deserialize",
    "evaluate",
    "ir",
    "make_context",
    "minimum_version",
    "passmanager",
    "rewrite",
    "serialize",
    "stablehlo_version",
]
