"""The StableHLO reference interpreter behind a crash-proof boundary.

The interpreter binding aborts the whole process on an op it does not support, so each program
runs in a child process and an abort is reported with its reason.  Before it runs, a copy of the
module is prepared: the entry function is chosen as upstream chooses it (the only function, else
`@main`) and named `@main`; check ops anywhere in the module become probes (see `checks`); and
complex values, which the binding can neither take nor hand back, cross it as their real and
imaginary parts: a complex parameter becomes two that `stablehlo.complex` joins, a complex
result is returned as `stablehlo.real` and `stablehlo.imag` and put back together as text.
For numpy, results of the types the binding cannot read out (bf16, small floats, sub-byte
integers) are converted in the program to a type that holds them exactly.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from shlo.errors import InterpreterError
from shlo.interpreter.checks import (
    PROBE_PREFIX,
    Check,
    CheckFailure,
    evaluate_checks,
    instrument_checks,
)
from shlo.interpreter.collectives import ParallelError
from shlo.interpreter.parallel import lower_run_parallel
from shlo.interpreter.probes import (
    INDEX,
    NUMPY_TYPES,
    SMALL_FLOATS,
    ProbeRecord,
    complex_parts,
    join_complex,
    read_index,
    widened,
)
from shlo.interpreter.rendezvous import TRAP
from shlo.interpreter.tensor_text import complex_attribute, complex_parts_text
from shlo.interpreter.unsupported import unsupported_reason
from shlo.ir.edit import create, erase_arguments, functions, ops_in, returned_values, set_results
from shlo.ir.module import constant_value
from shlo.ir.output import atomic_path, write_file
from shlo.ir.resources import inline_resources
from shlo.ir.stablehlo import WORLD, ir, make_context
from shlo.ir.worlds import ContextPolicy

_ABORT = re.compile(r"LLVM ERROR: (.*)")
_TRAP = re.compile(rf'@{TRAP}\(\).*backend_config = "(\d+):(\d+): ([^"]*)"')
_UNSUPPORTED = re.compile(
    r"Operation (\S+) is unsupported|Unsupported op: (?:%\S+ = )?\"?([\w.]+)"
    r"|^(\w+) is only supported when run via interpreter.run_parallel"
)


@dataclass
class Prepared:
    """A program ready for the child interpreter: its bytecode, the checks taken out of it, and
    which arguments go in and which results come back split into (real, imaginary) pairs."""

    entry: str
    bytecode: bytes
    checks: list[Check] = field(default_factory=list)
    complex_results: list[bool] = field(default_factory=list)
    complex_arguments: list[bool] = field(default_factory=list)

    def argument_texts(self, arguments: list[str]) -> list[str]:
        """The attribute texts the binding takes for `arguments` (as MLIR printed them, already
        checked against the signature)."""
        texts: list[str] = []
        for text, is_complex in zip(arguments, self.complex_arguments, strict=True):
            texts += complex_parts_text(text) if is_complex else [text]
        return texts


@dataclass
class Outcome:
    """What one run gave: @main's results as attribute text (`parts`: as the program returned
    them, complex ones split), or why it could not run, and the checks that did not hold."""

    results: list[str] = field(default_factory=list)
    error: str | None = None
    failures: list[CheckFailure] = field(default_factory=list)
    error_at: tuple[int, int] | None = None  # the (line, column) the error names, if any
    parts: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Argument:
    """One `--args` value: its type and its text as MLIR prints it (complex ones included,
    which the bindings cannot hold as attributes)."""

    type: Any
    text: str

    def __str__(self) -> str:
        return self.text


def signature_error(module: Any, entry: str, arguments: list[Argument]) -> str | None:
    """Api.cpp's validateEntrySignature: the arguments must match the entry function's
    parameters in number and type; its message when they do not."""
    signature = ir.TypeAttr(functions(module)[entry].attributes["function_type"]).value
    inputs = list(signature.inputs)
    if len(arguments) != len(inputs):
        return (
            f"incorrect number of arguments specified, provided {len(arguments)} inputs but "
            f"function expected {len(inputs)}"
        )
    for index, (argument, expected) in enumerate(zip(arguments, inputs, strict=True)):
        if str(argument.type) != str(expected):
            return (
                f"invalid input argument type at index {index}, input type was {argument.type} "
                f"but entry function expected {expected}"
            )
    return None


def parse_argument(text: str, context: Any) -> Argument | None:
    """`text` as an argument; None when it is no dense elements attribute.  Raises
    `ir.MLIRError` when it does not parse."""
    try:
        attribute = ir.Attribute.parse(text, context)
    except TypeError:  # parsed, but the bindings have no class for it: complex elements
        with context, ir.Location.unknown():
            constant = ir.Operation.parse(f"stablehlo.constant {text}")
        printed = str(constant).partition("stablehlo.constant ")[2].strip()
        return Argument(constant.results[0].type, printed)
    if not isinstance(attribute, ir.DenseElementsAttr):
        return None
    return Argument(attribute.type, str(attribute))


def entry_function(module: Any, requested: str = "main") -> str:
    """The function upstream's interpreter runs: the only one, else `requested`."""
    named = functions(module)
    if len(named) == 1 and requested == "main":
        return next(iter(named))
    if requested not in named:
        listed = ", ".join(f"@{n}" for n in named) or "none"
        raise InterpreterError(f"no function @{requested} to run; functions: {listed}")
    return requested


def bytecode(module: Any) -> bytes:
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def prepare(module: Any, requested: str = "main", readable: bool = False) -> Prepared:
    """A copy of `module` (an `ir.Module`) whose entry function is `@main`, its checks turned
    into probes, its complex arguments and results split; with `readable`, its results of types
    numpy cannot read from the binding converted to ones that hold them exactly."""
    entry = entry_function(module, requested)
    copy = ir.Module.parse(bytecode(module), module.context)
    named = functions(copy)
    with module.context, ir.Location.unknown():
        _tensor_constants_as_stablehlo(copy)
        inline_resources(copy)  # the interpreter misreads resource blobs
        checks = instrument_checks(copy)  # before renaming: checks name their own function
        try:
            lower_run_parallel(copy)  # after: a check in a process is probed in each
        except ParallelError as error:
            raise InterpreterError(str(error), error.location) from None
        if entry != "main" and "main" in named:
            named["main"].attributes["sym_name"] = ir.StringAttr.get("__shlo_main")
        named[entry].attributes["sym_name"] = ir.StringAttr.get("main")
        split_results = _split_results(named[entry], readable)
        split_arguments = _split_complex_arguments(named[entry])
    return Prepared(entry, bytecode(copy), checks, split_results, split_arguments)


def _is_complex(value_type: Any) -> bool:
    return isinstance(value_type, ir.RankedTensorType) and isinstance(
        ir.RankedTensorType(value_type).element_type, ir.ComplexType
    )


def _split_results(function: Any, readable: bool) -> list[bool]:
    """Return each complex result as its real and imaginary parts (with `readable`, each result
    also in a type numpy reads); which results were split."""
    values = returned_values(function)
    split = [_is_complex(v.type) for v in values]
    if not any(split) and not readable:
        return split
    block = function.regions[0].blocks[0]
    terminator = block.operations[len(block.operations) - 1]
    parts: list[Any] = []
    with ir.InsertionPoint(terminator), terminator.location:
        for value, is_complex in zip(values, split, strict=True):
            if is_complex:
                parts += complex_parts(value)
            elif readable and isinstance(value.type, ir.RankedTensorType):
                parts.append(_readable(value))
            else:
                parts.append(value)
    set_results(function, parts)
    return split


def _readable(value: Any) -> Any:
    """`value` in a type whose attribute numpy reads from the binding, at the insertion point:
    bf16 and 8-bit floats as their bits (NaN payloads kept), narrower floats (which have no NaN)
    as f32, sub-byte integers as 8 bits."""
    tensor = ir.RankedTensorType(value.type)
    element = tensor.element_type
    if str(element) in (*SMALL_FLOATS, "bf16") and ir.FloatType(element).width in (8, 16):
        bits = ir.IntegerType.get_unsigned(ir.FloatType(element).width)
        bits_type = ir.RankedTensorType.get(list(tensor.shape), bits)
        return create("stablehlo.bitcast_convert", bits_type, [value])
    return widened(value, SMALL_FLOATS)


def _split_complex_arguments(function: Any) -> list[bool]:
    """Take each complex parameter as its real and imaginary parts, joined with
    `stablehlo.complex` where the function begins; which parameters were split."""
    block = function.regions[0].blocks[0]
    old = list(block.arguments)
    split = [_is_complex(a.type) for a in old]
    if not any(split):
        return split
    with ir.InsertionPoint.at_block_begin(block), function.location:
        for argument, is_complex in zip(old, split, strict=True):
            if not is_complex:
                argument.replace_all_uses_with(block.add_argument(argument.type, argument.location))
                continue
            tensor = ir.RankedTensorType(argument.type)
            part = ir.RankedTensorType.get(
                list(tensor.shape), ir.ComplexType(tensor.element_type).element_type
            )
            real, imaginary = (block.add_argument(part, argument.location) for _ in range(2))
            argument.replace_all_uses_with(
                create("stablehlo.complex", argument.type, [real, imaginary])
            )
    erase_arguments(function, range(len(old)))
    return split


def run_programs(
    programs: list[Prepared], arguments: list[str], probe_dir: str = "", timeout: float = 0
) -> list[Outcome]:
    """Each program in a child interpreter, in order; results, failures and checks judged.

    The child's stdout is the caller's, so `interpreter.print` output reaches the user.  User
    probes go to `probe_dir` as upstream writes them (`probeN.npy` and `index.csv`).  With a
    `timeout`, a program that runs longer is stopped and reported.
    """
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="shlo-interpret-") as scratch:
        results = Path(scratch) / "results.jsonl"
        probe_dirs = [Path(scratch) / f"probes{i}" for i in range(len(programs))]
        for directory in probe_dirs:
            directory.mkdir()
        while len(outcomes) < len(programs):
            start = len(outcomes)
            results.write_text("")
            error = _run_child(programs[start:], arguments, probe_dirs[start:], results, timeout)
            lines = [json.loads(line) for line in results.read_text().splitlines()]
            for program, directory, line in zip(
                programs[start:], probe_dirs[start:], lines, strict=False
            ):
                if "error" in line:
                    outcomes.append(Outcome(error=line["error"]))
                else:
                    records = read_index(directory)
                    outcomes.append(_judge(program, line["results"], records, probe_dir))
            if error is not None and len(outcomes) < len(programs):
                outcomes.append(_failed(error))
    return outcomes


def _run_child(
    programs: list[Prepared],
    arguments: list[str],
    probe_dirs: list[Path],
    results: Path,
    timeout: float,
) -> str | None:
    """Run the child on `programs`; None when all ran, else why the first unfinished one died."""
    request = json.dumps(
        {
            "modules": [p.bytecode.hex() for p in programs],
            "arguments": [p.argument_texts(arguments) for p in programs],
            "results": str(results),
            "probe_dirs": [str(d) for d in probe_dirs],
            "parent": os.getpid(),
        }
    )
    sys.stdout.flush()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "shlo.interpreter.child"],
            input=request,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout or None,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g} s"
    if done.returncode == 0:
        return None
    return _abort_reason(done.stderr, done.returncode)


def _failed(error: str) -> Outcome:
    """The outcome of a program that died: at the trap it reached, if it reached one."""
    trap = _TRAP.search(error)
    if trap is None:
        return Outcome(error=error)
    return Outcome(error=trap.group(3), error_at=(int(trap.group(1)), int(trap.group(2))))


def _abort_reason(stderr: str, returncode: int) -> str:
    """What the child printed before it died, with a way out where shlo knows one."""
    abort = _ABORT.search(stderr)
    reason = abort.group(1) if abort else stderr.strip()[-500:]
    if _TRAP.search(reason):
        return reason
    unsupported = _UNSUPPORTED.search(reason)
    name = unsupported and (
        unsupported.group(1) or unsupported.group(2) or f"stablehlo.{unsupported.group(3)}"
    )
    if name and (known := unsupported_reason(name)):
        return known
    if name == "interpreter.probe" and f'probe_id = "{PROBE_PREFIX}' in reason:
        return (
            "a check op inside an if or case branch: upstream's interpreter evaluates branches "
            "without the check dialect and aborts (Unsupported op)"
        )
    if returncode < 0:
        signame = signal.Signals(-returncode).name
        meaning = {"SIGFPE": " (an arithmetic error such as an integer division by zero)"}
        reason = f"{signame}{meaning.get(signame, '')}" + (f": {reason}" if reason else "")
    return f"the interpreter aborted: {reason or f'exit status {returncode}'}"


def _judge(
    program: Prepared, texts: list[str], records: list[ProbeRecord], probe_dir: str
) -> Outcome:
    ours = [r for r in records if r.probe_id.startswith(PROBE_PREFIX)]
    user = [r for r in records if not r.probe_id.startswith(PROBE_PREFIX)]
    if probe_dir:
        user = _publish_probes(user, Path(probe_dir))
    failures = evaluate_checks(program.checks, ours, user)
    return Outcome(_join_complex(texts, program.complex_results), failures=failures, parts=texts)


def _publish_probes(records: list[ProbeRecord], directory: Path) -> list[ProbeRecord]:
    """The user's probes copied to `directory` as upstream names them; their new records."""
    directory.mkdir(parents=True, exist_ok=True)
    published = []
    for number, record in enumerate(records, start=1):
        target = directory / f"probe{number}.npy"
        with atomic_path(target) as scratch:
            shutil.copyfile(record.path, scratch)
        published.append(ProbeRecord(record.probe_id, record.type, str(target)))
    index = "".join(f"{r.probe_id},{r.type},{r.path}\n" for r in published)
    write_file(directory / INDEX, index.encode())
    return published


def _join_complex(texts: list[str], split: list[bool]) -> list[str]:
    joined, parts = [], iter(texts)
    for is_complex in split:
        joined.append(complex_attribute(next(parts), next(parts)) if is_complex else next(parts))
    return joined


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


def numpy_argument(array: np.ndarray, context: Any) -> Argument:
    """A numpy argument, bit for bit: its raw data under the element type its dtype stands for
    (ml_dtypes for bf16, small floats and sub-byte integers)."""
    array = np.asarray(array, order="C")
    element = next((n for n, dtype in NUMPY_TYPES.items() if np.dtype(dtype) == array.dtype), None)
    if element is None:
        raise InterpreterError(f"no StableHLO element type holds numpy's {array.dtype}")
    if np.iscomplexobj(array):  # the bindings make no complex attribute; MLIR parses raw hex
        shape = "".join(f"{d}x" for d in array.shape)
        hexed = f'dense<"0x{array.tobytes().hex().upper()}"> : tensor<{shape}{element}>'
        argument = parse_argument(hexed, context)
        assert argument is not None  # a dense elements attribute by construction
        return argument
    with context, ir.Location.unknown():
        raw = array.view(f"u{array.itemsize}")
        element_type = ir.Type.parse(element)
        attribute = ir.DenseElementsAttr.get(raw, type=element_type, shape=list(array.shape))
        return Argument(attribute.type, str(attribute))


def attribute_array(attribute_text: str, context: Any) -> np.ndarray:
    """An elements attribute as numpy, in the element type it has (f32 stays f32)."""
    attribute = ir.DenseElementsAttr(ir.Attribute.parse(attribute_text, context))
    shaped = ir.ShapedType(attribute.type)
    dtype = NUMPY_TYPES.get(str(shaped.element_type))
    if attribute.is_splat:
        array = np.full(shaped.shape, np.array(attribute.get_splat_value().value))
    else:
        array = np.array(attribute).reshape(shaped.shape)
    return array.astype(dtype) if dtype is not None else array


def interpret_module(
    module: Any, inputs: list[np.ndarray], function: str = "main"
) -> list[np.ndarray]:
    """Run `function` of an `IRModule` on numpy inputs in the reference interpreter.

    Takes and returns numpy arrays of every element type the interpreter has (ml_dtypes for
    bf16, small floats and sub-byte integers); raises InterpreterError when it cannot run.
    """
    context = make_context(ContextPolicy(allow_unregistered_dialects=True))
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    arguments = [numpy_argument(a, context) for a in inputs]
    program = prepare(copy, function, readable=True)
    if mismatch := signature_error(copy, program.entry, arguments):
        raise InterpreterError(f"@{function}: {mismatch}")
    (outcome,) = run_programs([program], [a.text for a in arguments])
    if outcome.error is not None:
        raise InterpreterError(f"@{function}: {outcome.error}")
    signature = ir.TypeAttr(functions(copy)[program.entry].attributes["function_type"]).value
    parts = iter(outcome.parts)
    results = []
    for result_type in signature.results:
        read = attribute_array(next(parts), context)
        dtype = np.dtype(NUMPY_TYPES.get(str(ir.ShapedType(result_type).element_type), read.dtype))
        if dtype.kind == "c":
            results.append(join_complex(read, attribute_array(next(parts), context)))
        elif read.dtype.kind == "u" and dtype.kind not in "biu":  # `_readable`'s float bits
            results.append(read.view(dtype))
        else:
            results.append(read.astype(dtype))
    return results
