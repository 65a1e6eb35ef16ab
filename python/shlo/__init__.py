"""shlo: stablehlo-opt, the StableHLO interpreter and a PyTorch -> IREE path on the MLIR wheels.

    module = shlo.load("model.mlir")        # or MLIR text, or bytes; world="iree" for IREE's
    print(module)

`shlo.api` gathers the PyTorch -> IREE entry points (it loads torch and both wheels).
"""

from __future__ import annotations

from typing import Any

from shlo.settings import VERSION as __version__

__all__ = ["__version__", "load"]


def __getattr__(name: str) -> Any:
    # `load` pulls in the MLIR bindings; `shlo --help` and the tools import this package first
    if name == "load":
        from shlo.ir.load import load

        return load
    raise AttributeError(f"module 'shlo' has no attribute {name!r}")
