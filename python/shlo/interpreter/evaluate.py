"""The StableHLO reference interpreter behind a crash-proof boundary.

No binding has the `check` dialect, and the interpreter binding aborts the whole process on an
op it does not support or a complex result.  So: check ops are rewritten from their custom
syntax to generic form (parsed as unregistered ops), taken out of each function, and their
operands returned instead; each function is renamed `@main` in its own copy of the module; and
the interpreter runs in a child process, so an abort names the op instead of killing the caller.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from shlo.errors import ShloError
from shlo.interpreter.checks import Check, attribute_array, split_checks
from shlo.interpreter.unsupported import unsupported_reason
from shlo.ir.edit import functions, ops_in
from shlo.ir.element_types import DTYPES
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import WORLD, ir, make_context
from shlo.ir.worlds import ContextPolicy

_ABORT = re.compile(r"LLVM ERROR: (.*)")
_UNSUPPORTED = re.compile(r"Operation (\S+) is unsupported|Unsupported op: (?:%\S+ = )?\"?([\w.]+)")


class InterpreterError(ShloError, RuntimeError):
    """The program cannot be interpreted (unsupported op, bad check syntax, wrong arguments)."""


def run_isolated(
    modules: list[bytes], arguments: list[str], probe_dir: str = ""
) -> list[list[str] | str]:
    """Each module's @main in a child interpreter: results as text, or why it failed.

    The child's stdout is the caller's, so `interpreter.print` output reaches the user.
    """
    outcomes: list[list[str] | str] = []
    with tempfile.TemporaryDirectory(prefix="shlo-interpret-") as scratch:
        results = Path(scratch) / "results.jsonl"
        while len(outcomes) < len(modules):
            results.write_text("")
            request = json.dumps(
                {
                    "modules": [m.hex() for m in modules[len(outcomes) :]],
                    "arguments": arguments,
                    "results": str(results),
                    "probe_dir": probe_dir,
                }
            )
            sys.stdout.flush()
            done = subprocess.run(
                [sys.executable, "-m", "shlo.interpreter.child"],
                input=request,
                stderr=subprocess.PIPE,
                text=True,
            )
            outcomes += [json.loads(line) for line in results.read_text().splitlines()]
            if done.returncode != 0 and len(outcomes) < len(modules):
                outcomes.append(_abort_reason(done.stderr))
    return outcomes


def _abort_reason(stderr: str) -> str:
    """What the child printed before it died, with a way out where shlo knows one."""
    abort = _ABORT.search(stderr)
    reason = abort.group(1) if abort else stderr.strip()[-500:]
    unsupported = _UNSUPPORTED.search(reason)
    name = unsupported and (unsupported.group(1) or unsupported.group(2))
    return (name and unsupported_reason(name)) or f"the interpreter aborted: {reason}"


def bytecode(module: Any) -> bytes:
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def as_main(module: Any, name: str, with_checks: bool = False) -> tuple[bytes, list[Check]]:
    """A copy of `module` (an `ir.Module`) whose `@name` is `@main`, as bytecode for the child
    interpreter, with the function's checks split off when `with_checks`."""
    copy = ir.Module.parse(bytecode(module), module.context)
    named = functions(copy)
    if name not in named:
        raise InterpreterError(f"no function @{name}; functions: {', '.join(named)}")
    with module.context, ir.Location.unknown():
        _tensor_constants_as_stablehlo(copy)
        _inline_resources(copy)
        if name != "main" and "main" in named:
            named["main"].attributes["sym_name"] = ir.StringAttr.get("__shlo_main")
        named[name].attributes["sym_name"] = ir.StringAttr.get("main")
        checks = split_checks(named[name]) if with_checks else []
    return bytecode(copy), checks


_COMPLEX_PARTS = {np.dtype(np.complex64): "f32", np.dtype(np.complex128): "f64"}


def _attribute_text(array: np.ndarray) -> str:
    """An argument as MLIR attribute text (the bindings build no complex attributes)."""
    if array.dtype not in _COMPLEX_PARTS:
        return str(ir.DenseElementsAttr.get(array))
    values = ", ".join(f"({v.real!r}, {v.imag!r})" for v in array.reshape(-1))
    values = values if array.ndim == 0 else f"[{values}]"
    shape = "x".join(map(str, array.shape))
    return (
        f"dense<[{values}]> : tensor<{shape}{'x' if shape else ''}"
        f"complex<{_COMPLEX_PARTS[array.dtype]}>>"
    )


def _tensor_constants_as_stablehlo(module: Any) -> None:
    """`arith.constant` of a tensor (torch-mlir emits some) as `stablehlo.constant`, which the
    interpreter evaluates and arith's it does not."""
    constants = [
        op
        for op in ops_in(module, "arith.constant")
        if isinstance(op.results[0].type, ir.RankedTensorType)
    ]
    for op in constants:
        with ir.InsertionPoint(op), op.location:
            replacement = ir.Operation.create(
                "stablehlo.constant",
                results=[op.results[0].type],
                attributes={"value": constant_value(op)},
            )
        op.results[0].replace_all_uses_with(replacement.results[0])
        op.erase()


_RESOURCE = re.compile(r'^\s*([\w.$-]+): "0x([0-9A-Fa-f]*)"', re.MULTILINE)


def _inline_resources(module: Any) -> None:
    """dense_resource constants as dense elements: the interpreter misreads resource blobs.

    The blobs are read from the module's printed resource section (`0x` + a 4-byte alignment
    word + the data), which is the one place the bindings expose their bytes.
    """
    constants = [
        op
        for op in ops_in(module, "stablehlo.constant")
        if str(constant_value(op)).startswith("dense_resource<")
    ]
    if not constants:
        return
    blobs = {
        name: bytes.fromhex(data)[4:]
        for name, data in _RESOURCE.findall(module.operation.get_asm(assume_verified=True))
    }
    for op in constants:
        name = str(constant_value(op)).split("<", 1)[1].split(">", 1)[0]
        shaped = op.results[0].type
        dtype = DTYPES.get(str(shaped.element_type))
        if name not in blobs or dtype is None:
            continue
        array = np.frombuffer(blobs[name], dtype=dtype).reshape(shaped.shape)
        op.attributes["value"] = ir.DenseElementsAttr.get(array, type=shaped)


def interpret_module(module: Any, inputs: list[np.ndarray], function: str = "main") -> list:
    """Run `function` of an `IRModule` on numpy inputs in the reference interpreter.

    Returns numpy arrays; raises InterpreterError when the interpreter cannot run it.
    """
    context = make_context(ContextPolicy(allow_unregistered_dialects=True))
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    with context:
        arguments = [_attribute_text(np.ascontiguousarray(a)) for a in inputs]
    data, _ = as_main(copy, function)
    (outcome,) = run_isolated([data], arguments)
    if isinstance(outcome, str):
        raise InterpreterError(f"@{function}: {outcome}")
    return [attribute_array(text, context) for text in outcome]
