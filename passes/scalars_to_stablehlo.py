"""`shlo-scalars-to-stablehlo`: torch-mlir's scalar arithmetic as StableHLO on 0-d tensors
(`shlo.ir.scalars` says how; the frontend runs it on each import)."""

from __future__ import annotations

from typing import Any

from shlo.ir.scalars import rewrite_scalars
from shlo.pipeline.python_pass import register_pass


@register_pass("shlo-scalars-to-stablehlo")
def scalars_to_stablehlo(module: Any, options: None) -> None:
    """Rewrite scalar tensor/arith ops and tensor-typed arith constants as StableHLO."""
    rewrite_scalars(module)
