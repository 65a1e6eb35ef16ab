"""torch-mlir's FX importer and lowering, including the internals shlo extends: the one place
outside `shlo.ir.stablehlo` that imports torch-mlir.

Composites need what torch-mlir does not export as public API: a `GraphNodeImporter` subclass
taught one more higher-order op, an `FxImporter` built with it, and `fx._module_lowering` to
lower each composite's function on its own.  The import without weight copies needs
`FxImporterHooks` and `create_mlir_tensor_type`.  Pinned to torch-mlir 20261001; a new
torch-mlir is checked here first.
"""

from __future__ import annotations

from torch_mlir import fx
from torch_mlir.dialects import torch as torch_dialect
from torch_mlir.extras.fx_decomp_util import get_decomposition_table
from torch_mlir.extras.fx_importer import (
    FxImporter,
    FxImporterHooks,
    GraphNodeImporter,
    create_mlir_tensor_type,
)
from torch_mlir.fx import OutputType
from torch_mlir.fx import _module_lowering as module_lowering

export_and_import = fx.export_and_import
register_torch_dialect = torch_dialect.register_dialect

__all__ = [
    "FxImporter",
    "FxImporterHooks",
    "GraphNodeImporter",
    "OutputType",
    "create_mlir_tensor_type",
    "export_and_import",
    "get_decomposition_table",
    "module_lowering",
    "register_torch_dialect",
]
