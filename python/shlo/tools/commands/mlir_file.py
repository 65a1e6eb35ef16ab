"""An MLIR file that a `shlo` command reads, as an IRModule."""

from __future__ import annotations

from shlo.ir.bytecode_guard import check_bytecode
from shlo.ir.module import IRModule, parse_or_raise
from shlo.ir.source import read_source
from shlo.ir.stablehlo import WORLD
from shlo.ir.worlds import ContextPolicy


def read_module(path: str) -> IRModule:
    """An MLIR file (text or bytecode) as an IRModule; malformed IR is reported as mlir-opt
    reports it."""
    source = read_source(path)
    if source.is_bytecode:  # MLIR's reader aborts on some damaged files: try it in a child
        check_bytecode(source.data, source.name)
    return parse_or_raise(WORLD, WORLD.make_context(ContextPolicy()), source)
