"""The StableHLO reference interpreter behind a crash-proof boundary.

The interpreter binding aborts the whole process on an op it does not support, so each program
runs in a child process and an abort is reported with its reason.  Before it runs, a copy of the
module is prepared: the entry function is chosen as upstream chooses it (the only function, else
`@main`) and named `@main`; check ops anywhere in the module become probes (see `checks`); and
complex results, which the binding cannot hand back, are returned as their real and imaginary
parts and put back together as text.
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
from shlo.interpreter.probes import INDEX, ProbeRecord, complex_parts, read_index
from shlo.interpreter.rendezvous import TRAP
from shlo.interpreter.tensor_text import complex_attribute
from shlo.interpreter.unsupported import unsupported_reason
from shlo.ir.edit import functions, ops_in, returned_values, set_results
from shlo.ir.element_types import DTYPES
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
    which results come back split into (real, imaginary) pairs."""

    entry: str
    bytecode: bytes
    checks: list[Check] = field(default_factory=list)
    complex_results: list[bool] = field(default_factory=list)


@dataclass
class Outcome:
    """What one run gave: @main's results as attribute text, or why it could not run, and the
    checks that did not hold."""

    results: list[str] = field(default_factory=list)
    error: str | None = None
    failures: list[CheckFailure] = field(default_factory=list)
    error_at: tuple[int, int] | None = None  # the (line, column) the error names, if any


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


def prepare(module: Any, requested: str = "main") -> Prepared:
    """A copy of `module` (an `ir.Module`) whose entry function is `@main`, its checks turned
    into probes, its complex results split."""
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
        split = _split_complex_results(named[entry])
    return Prepared(entry, bytecode(copy), checks, split)


def _split_complex_results(function: Any) -> list[bool]:
    """Return each complex result as its real and imaginary parts; which results were split."""
    values = returned_values(function)
    split = [
        isinstance(v.type, ir.RankedTensorType)
        and isinstance(ir.RankedTensorType(v.type).element_type, ir.ComplexType)
        for v in values
    ]
    if not any(split):
        return split
    block = function.regions[0].blocks[0]
    terminator = block.operations[len(block.operations) - 1]
    parts = []
    with ir.InsertionPoint(terminator), terminator.location:
        for value, is_complex in zip(values, split, strict=True):
            if not is_complex:
                parts.append(value)
                continue
            parts += complex_parts(value)
    set_results(function, parts)
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
            "arguments": arguments,
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
    return Outcome(_join_complex(texts, program.complex_results), failures=failures)


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


def _argument_text(array: np.ndarray) -> str:
    """An argument as MLIR attribute text."""
    if np.iscomplexobj(array):
        raise InterpreterError(
            "complex arguments cannot be handed to the interpreter binding; "
            "pass their real and imaginary parts and build them with stablehlo.complex"
        )
    return str(ir.DenseElementsAttr.get(array))


def attribute_array(attribute_text: str, context: Any) -> np.ndarray:
    """An elements attribute as numpy, in the element type it has (f32 stays f32)."""
    attribute = ir.DenseElementsAttr(ir.Attribute.parse(attribute_text, context))
    shaped = ir.ShapedType(attribute.type)
    dtype = DTYPES.get(str(shaped.element_type))
    if attribute.is_splat:
        array = np.full(shaped.shape, np.array(attribute.get_splat_value().value))
    else:
        array = np.array(attribute).reshape(shaped.shape)
    return array.astype(dtype) if dtype is not None else array


def interpret_module(
    module: Any, inputs: list[np.ndarray], function: str = "main"
) -> list[np.ndarray]:
    """Run `function` of an `IRModule` on numpy inputs in the reference interpreter.

    Returns numpy arrays; raises InterpreterError when the interpreter cannot run it.
    """
    context = make_context(ContextPolicy(allow_unregistered_dialects=True))
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    with context:
        arguments = [_argument_text(np.ascontiguousarray(a)) for a in inputs]
    (outcome,) = run_programs([prepare(copy, function)], arguments)
    if outcome.error is not None:
        raise InterpreterError(f"@{function}: {outcome.error}")
    return [attribute_array(text, context) for text in outcome.results]
