"""torch-mlir's FX importer and lowering, including the internals shlo extends: the one place
outside `shlo.ir.stablehlo` that imports torch-mlir.

Composites need what torch-mlir does not export as public API: a `GraphNodeImporter` subclass
taught one more higher-order op and an `FxImporter` built with it.  The import without weight
copies needs `FxImporterHooks` and `create_mlir_tensor_type`.  Pinned to torch-mlir 20261001;
a new torch-mlir is checked here first.

The lowering runs torch-mlir's own pipelines, but not through `torch_mlir.fx`'s driver: before
each pipeline that prints the whole module for a possible error report, weights included (they
are printed as hex text when large elements are elided but resources are not), which makes
importing a large model take most of its time and a text copy of its weights.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch_mlir import ir, passmanager
from torch_mlir.dialects import torch as torch_dialect
from torch_mlir.extras.fx_decomp_util import get_decomposition_table
from torch_mlir.extras.fx_importer import (
    FxImporter,
    FxImporterHooks,
    GraphNodeImporter,
    create_mlir_tensor_type,
)

from shlo.errors import ShloError
from shlo.frontend.complex_to_stablehlo import lower_complex_ops
from shlo.frontend.forked import announce
from shlo.frontend.scatter import lower_scatter_reductions
from shlo.frontend.special_functions import lower_special_functions

register_torch_dialect = torch_dialect.register_dialect


def _lower_complex_and_scatter_ops(module: Any) -> None:
    """What shlo lowers itself before torch-mlir's conversion to StableHLO."""
    lower_complex_ops(module)
    lower_scatter_reductions(module)


# The pipelines torch_mlir.fx runs for each output type, in order (torch-mlir 20261001), each
# with what shlo rewrites in Python before it runs.
_Step = tuple[str, str, Callable[[Any], None] | None]
_TO_BACKEND: _Step = (
    "Lowering TorchFX IR -> Torch Backend IR",
    "builtin.module(func.func(torch-match-quantized-custom-ops), "
    "torchdynamo-export-to-torch-backend-pipeline{ extra-library=})",
    lower_special_functions,
)
_PIPELINES: dict[str, tuple[_Step, ...]] = {
    "raw": (),
    "torch": (_TO_BACKEND,),
    "stablehlo": (
        _TO_BACKEND,
        (
            "Lowering Torch Backend IR -> StableHLO Backend IR",
            "builtin.module(torch-backend-to-stablehlo-backend-pipeline{allow-non-finites=True})",
            _lower_complex_and_scatter_ops,
        ),
    ),
    "linalg-on-tensors": (
        _TO_BACKEND,
        (
            "Lowering Torch Backend IR -> Linalg-on-Tensors Backend IR",
            "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline"
            "{allow-non-finites=True})",
            None,
        ),
    ),
}


class LoweringFailed(ShloError):
    """A torch-mlir pipeline failed; the message holds its diagnostics."""


def lower(module: Any, output_type: str) -> Any:
    """Lower an imported (raw torch dialect) module in place to `output_type` ("raw", "torch",
    "stablehlo" or "linalg-on-tensors") and return it.  Errors are also emitted as diagnostics,
    so a caller capturing native stderr sees each one with its location."""
    context = module.context
    emitted = context.emit_error_diagnostics
    context.emit_error_diagnostics = True  # for this lowering only: later runs want MLIRError's
    try:
        for description, pipeline, rewrite_first in _PIPELINES[output_type]:
            announce(f"torch-mlir's pipeline '{description}'")
            if rewrite_first is not None:
                rewrite_first(module)
            with context:
                try:
                    passmanager.PassManager.parse(pipeline).run(module.operation)
                except ir.MLIRError as error:
                    raise LoweringFailed(f"{description} failed: {error}") from None
    finally:
        context.emit_error_diagnostics = emitted
    return module


def export_and_import(
    program: torch.export.ExportedProgram,
    *,
    output_type: str = "raw",
    fx_importer: FxImporter | None = None,
    hooks: FxImporterHooks | None = None,
    func_name: str = "main",
) -> Any:
    """Import an exported (and already decomposed) program with its parameters frozen as
    constants, then `lower` it to `output_type`."""
    if fx_importer is None:
        context = ir.Context()
        register_torch_dialect(context)
        fx_importer = FxImporter(context=context, hooks=hooks)
    fx_importer.import_frozen_program(program, func_name=func_name)
    return lower(fx_importer.module, output_type)


__all__ = [
    "FxImporter",
    "FxImporterHooks",
    "GraphNodeImporter",
    "LoweringFailed",
    "create_mlir_tensor_type",
    "export_and_import",
    "get_decomposition_table",
    "lower",
    "register_torch_dialect",
]
