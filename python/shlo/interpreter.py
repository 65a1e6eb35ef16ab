"""The StableHLO reference interpreter, with the `check` dialect and a crash-proof boundary.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from shlo.check_dialect import STAND_IN
from shlo.ir_edit import functions, ops_in
from shlo.ir_io import constant_value
from shlo.stablehlo_world import ir

_ABORT = re.compile(r"LLVM ERROR: (.*)")
_UNSUPPORTED = re.compile(r"Operation (\S+) is unsupported|Unsupported op: (?:%\S+ = )?\"?([\w.]+)")
_UNFUSE_BATCH_NORM = "func.func(iree-stablehlo-preprocessing-unfuse-batch-norm)"
_DEPRECATED = "func.func(stablehlo-legalize-deprecated-ops)"
# Ops the pinned interpreter cannot evaluate (each one is run in
# tests/lit/translate/unsupported_ops.mlir), with a pipeline that rewrites it into ops the
# interpreter has, where the pinned wheels have one.
UNSUPPORTED: dict[str, str | None] = {
    "stablehlo.batch_norm_inference": _UNFUSE_BATCH_NORM,
    "stablehlo.batch_norm_training": _UNFUSE_BATCH_NORM,
    "stablehlo.dot": _DEPRECATED,
    "stablehlo.broadcast": _DEPRECATED,
    "stablehlo.create_token": _DEPRECATED,
    **dict.fromkeys(
        f"stablehlo.{op}"
        for op in (
            "batch_norm_grad cholesky einsum unary_einsum torch_index_select rng "
            "rng_bit_generator fft real_dynamic_slice custom_call"
        ).split()
    ),
}
_CHLO = "func.func(chlo-legalize-to-stablehlo)"
# Evaluated only inside `interpreter.run_parallel`, which gives them a process grid.
PARALLEL_ONLY = {
    f"stablehlo.{op}"
    for op in (
        "all_gather all_reduce all_to_all collective_broadcast collective_permute "
        "reduce_scatter partition_id replica_id"
    ).split()
}
_EVALUATED_DIALECTS = ("stablehlo.", "func.", "interpreter.", "check.", STAND_IN, "builtin.")


def unsupported_reason(name: str) -> str | None:
    """Why the interpreter cannot run op `name`, and the way out where there is one."""
    if name == "stablehlo.fft":
        return "the interpreter does not support stablehlo.fft (it aborts on its complex values)"
    if name in UNSUPPORTED or name.startswith("chlo."):
        pipeline = _CHLO if name.startswith("chlo.") else UNSUPPORTED[name]
        way_out = (
            f"; decompose it first with shlo-opt --pass-pipeline='builtin.module({pipeline})'"
            if pipeline
            else ""
        )
        return f"the interpreter does not support {name}{way_out}"
    if name in PARALLEL_ONLY:
        return f"{name} runs only under interpreter.run_parallel"
    if not name.startswith(_EVALUATED_DIALECTS):
        return f"the interpreter evaluates only StableHLO and func ops, not {name}"
    return None


DEFAULT_TOLERANCE = 1e-4


class InterpreterError(RuntimeError):
    """The program cannot be interpreted (unsupported op, bad check syntax, wrong arguments)."""


@dataclass
class Check:
    """One check op: its kind, where it was, how many operands it takes, its attributes."""

    kind: str
    line: int
    column: int
    operands: int
    expected: str | None = None
    options: dict[str, str] = field(default_factory=dict)


def _line_column(op: Any) -> tuple[int, int]:
    match = re.search(r":(\d+):(\d+)", str(op.location))
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _check_kind(op: Any) -> str | None:
    """`expect_eq` for `check.expect_eq` and `stablehlo.custom_call @check.expect_eq`."""
    name = op.operation.name
    for prefix in (STAND_IN, "check."):
        if name.startswith(prefix):
            return name[len(prefix) :]
    if name == "stablehlo.custom_call":
        target = str(op.operation.attributes["call_target_name"]).strip('"')
        return target[len("check.") :] if target.startswith("check.") else None
    return None


def split_checks(function: Any) -> list[Check]:
    """Remove the function's check ops; their operands become extra results of the function."""
    block = function.regions[0].blocks[0]
    checks, checked = [], []
    for op in list(block.operations):
        kind = _check_kind(op)
        if kind is None:
            continue
        operation = op.operation
        attributes = {
            key: str(operation.attributes[key])
            for key in operation.attributes
            if key not in ("value", "call_target_name")
        }
        value = constant_value(operation)
        expected = str(value) if value is not None else None
        if "value" in operation.attributes and value is None:
            attributes["unreadable"] = "complex constants cannot be read from Python"
        checks.append(Check(kind, *_line_column(op), len(op.operands), expected, attributes))
        checked += list(op.operands)
        operation.erase()
    return_also(function, checked)
    return checks


def return_also(function: Any, values: list[Any]) -> None:
    """Make `function` return `values` after its own results (signature updated to match)."""
    block = function.regions[0].blocks[0]
    terminator = block.operations[len(block.operations) - 1]
    returned = [*terminator.operands, *values]
    with ir.InsertionPoint.at_block_terminator(block), terminator.location:
        ir.Operation.create("func.return", operands=returned)
    terminator.operation.erase()
    signature = ir.TypeAttr(function.attributes["function_type"]).value
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(list(signature.inputs), [v.type for v in returned])
    )


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
                [sys.executable, "-m", "shlo.interpreter_child"],
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


def _array(attribute_text: str, context: Any) -> np.ndarray:
    """An elements attribute as numpy, in the element type it has (f32 stays f32)."""
    from shlo.runtime import DTYPES

    attribute = ir.DenseElementsAttr(ir.Attribute.parse(attribute_text, context))
    shaped = ir.ShapedType(attribute.type)
    dtype = DTYPES.get(str(shaped.element_type))
    if attribute.is_splat:
        array = np.full(shaped.shape, np.array(attribute.get_splat_value().value))
    else:
        array = np.array(attribute).reshape(shaped.shape)
    return array.astype(dtype) if dtype is not None else array


def evaluate_check(check: Check, actual: list[str], context: Any) -> str | None:
    """None when the check holds, else what differs."""
    if "unreadable" in check.options:
        return f"check.{check.kind}: {check.options['unreadable']}"
    got = _array(actual[0], context)
    want = _array(check.expected if check.expected else actual[1], context)
    if check.kind in ("expect_eq", "expect_eq_const"):
        ok = got.shape == want.shape and bool(np.array_equal(got, want))
    elif check.kind in ("expect_almost_eq", "expect_almost_eq_const"):
        tolerance = _number(check.options, "tolerance", DEFAULT_TOLERANCE)
        ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=0, atol=tolerance))
    elif check.kind == "expect_close":
        ok = _within_ulps(got, want, check.options)
    else:
        return f"check.{check.kind} is not supported"
    return None if ok else f"expected {_show(want)}, got {_show(got)}"


def _within_ulps(got: np.ndarray, want: np.ndarray, options: dict[str, str]) -> bool:
    high = int(_number(options, "max_ulp_difference", 1))
    low = int(_number(options, "min_ulp_difference", 0))
    if got.dtype.kind != "f" or got.shape != want.shape:
        return False
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[got.dtype.itemsize]
    distance = np.abs(got.view(bits).astype(np.int64) - want.view(bits).astype(np.int64))
    return bool(np.all((distance >= low) & (distance <= high)))


def _number(options: dict[str, str], key: str, default: float) -> float:
    """An attribute's number: `1.0e-04 : f64` -> 1e-4."""
    return float(options[key].split(":")[0]) if key in options else default


def _show(array: np.ndarray) -> str:
    return np.array2string(array, threshold=20, separator=", ", max_line_width=10**6)


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
    from shlo.runtime import DTYPES

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


def unsupported_ops(operation: Any) -> list[tuple[Any, str]]:
    """(op, reason) for each op under `operation` the interpreter cannot evaluate."""
    found = []
    for op in ops_in(operation):
        name = op.name
        if name == "stablehlo.custom_call" and _check_kind(op):
            continue
        if name == "arith.constant" and isinstance(op.results[0].type, ir.RankedTensorType):
            continue  # shlo turns these into stablehlo.constant first
        if name != "func.func" and (reason := unsupported_reason(name)):
            found.append((op, reason))
    return found


def interpret_module(module: Any, inputs: list[np.ndarray], function: str = "main") -> list:
    """Run `function` of an `IRModule` on numpy inputs in the reference interpreter.

    Returns numpy arrays; raises InterpreterError when the interpreter cannot run it.
    """
    from shlo.stablehlo_world import WORLD, make_context
    from shlo.world import ContextPolicy

    context = make_context(ContextPolicy(allow_unregistered_dialects=True))
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    with context:
        arguments = [_attribute_text(np.ascontiguousarray(a)) for a in inputs]
    data, _ = as_main(copy, function)
    (outcome,) = run_isolated([data], arguments)
    if isinstance(outcome, str):
        raise InterpreterError(f"@{function}: {outcome}")
    return [_array(text, context) for text in outcome]
