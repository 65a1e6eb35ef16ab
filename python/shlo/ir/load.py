"""`shlo.load`: an IR module from a file, a string or bytes, in either binding world.

The one call a script needs to get IR it can print, pass to `Pipeline.run`, `flatten` or
`compile_module`; malformed IR raises `ParseError` with MLIR's `file:line:col: error: ...`.
"""

from __future__ import annotations

import os

from shlo.ir.bytecode_guard import check_bytecode
from shlo.ir.module import IRModule, parse_or_raise
from shlo.ir.source import Source, read_source
from shlo.ir.worlds import ContextPolicy, get_world


def load(
    source: str | os.PathLike[str] | bytes,
    world: str = "stablehlo",
    *,
    allow_unregistered_dialects: bool = False,
) -> IRModule:
    """Parse `source` (a path, MLIR text, or text or bytecode as bytes) in `world`
    ("stablehlo": torch-mlir's bindings with StableHLO's passes; "iree": IREE's)."""
    chosen = get_world(world)
    context = chosen.make_context(ContextPolicy(allow_unregistered_dialects))
    parsed = _as_source(source)
    if parsed.is_bytecode:  # MLIR's reader aborts on some damaged files: try it in a child
        check_bytecode(parsed.data, parsed.name, world)
    return parse_or_raise(chosen, context, parsed)


def _as_source(source: str | os.PathLike[str] | bytes) -> Source:
    if isinstance(source, bytes):
        return Source("<bytes>", source)
    if isinstance(source, str) and any(mark in source for mark in "\n{(="):
        return Source("<string>", source.encode())  # IR, not a path
    return read_source(os.fspath(source))
