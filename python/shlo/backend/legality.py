"""Every op IREE's StableHLO input conversion rejects, not only the first one.

iree-compile stops at the first op it cannot legalize.  To list them all, a copy of the module
gets one distinct location per op, goes through `iree-compile --compile-to=input`, and the op
its first error points at is knocked out: replaced by a call to an external function of the
same type, so the rest of the module stays as it was (an op is judged in its real context:
whether IREE takes a dynamic op can depend on where its shape operand comes from).  Then it
compiles again, until nothing fails.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from shlo.ir.diagnostics import Diagnostic, parse_printed
from shlo.ir.edit import call_function, declare_function, ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.native_tools import run_binary

_MARK = "shlo-op"  # file name of the per-op locations; the line is the op's walk index + 1
_MAX_ROUNDS = 200  # one compilation per rejected op: a bound for modules that reject thousands
_UNMARKED = {"builtin.module", "func.func"}


def _compile(module: Any) -> list[Diagnostic]:
    """IREE's input conversion on the module; its error diagnostics (none when it succeeds)."""
    with tempfile.TemporaryDirectory(prefix="shlo-iree-legality-") as scratch:
        source = Path(scratch) / "input.mlirbc"
        with source.open("wb") as stream:
            module.operation.write_bytecode(stream)
        done = run_binary(
            "iree-compile",
            [str(source), "--compile-to=input", "--iree-input-type=stablehlo", "-o", "/dev/null"],
        )
    errors = [d for d in parse_printed(done.stderr) if d.severity == "error"]
    if done.returncode != 0 and not errors:
        errors = [Diagnostic("error", done.stderr.strip() or f"exit status {done.returncode}")]
    return errors


def _knock_out(op: Any, module: Any, index: int) -> None:
    """Replace `op` by a call to an external function that takes and returns what it does."""
    signature = ir.FunctionType.get([v.type for v in op.operands], [r.type for r in op.results])
    name = f"__shlo_knocked_out_{index}"
    with ir.InsertionPoint.at_block_begin(module.regions[0].blocks[0]):
        declare_function(name, signature)
    with ir.InsertionPoint(op):
        call = call_function(name, signature, list(op.operands))
    for old, new in zip(op.results, call.results, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


def _message(diag: Diagnostic) -> str:
    """IREE's message without the op it appends after ': %' or ': "'."""
    return diag.message.split(": %", 1)[0].split(': "', 1)[0]


def rejected(module: Any) -> list[tuple[Any, str]]:
    """(op, IREE's reason) for every op the input conversion rejects; [] when it takes all."""
    originals = ops_in(module)
    with module.context, ir.Location.unknown():
        buffer = tempfile.SpooledTemporaryFile()
        module.write_bytecode(buffer)
        buffer.seek(0)
        copy = ir.Module.parse(buffer.read()).operation
        marked = ops_in(copy)
        for index, op in enumerate(marked):
            if op.name not in _UNMARKED:
                op.location = ir.Location.file(_MARK, index + 1, 1)
        found: list[tuple[Any, str]] = []
        for _ in range(_MAX_ROUNDS):
            errors = _compile(copy)
            if not errors:
                return found
            first = errors[0]
            if first.file != _MARK or not 0 < first.line <= len(marked):
                break  # not an op's own error (a function, a knocked-out call): IREE's words
            index = first.line - 1
            found.append((originals[index], _message(first)))
            _knock_out(marked[index], copy, index)
        else:
            errors = [Diagnostic("error", f"stopped after {_MAX_ROUNDS} rejected ops")]
    return found + [(module, _message(error)) for error in errors]
