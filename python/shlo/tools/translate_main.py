"""`shlo-translate`: portable artifacts and the StableHLO reference interpreter.

    shlo-translate model.mlir --serialize --target=1.0.0 -o model.vhlo
    shlo-translate model.vhlo --deserialize
    shlo-translate model.mlir --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>]'
    shlo-translate --print-stablehlo-version

--interpret runs the module's only function, else @main, as stablehlo-translate does, and
evaluates every `check` op it executes (expect_eq[_const], expect_almost_eq[_const],
expect_close, expect_serialized_eq), in called functions and regions too.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO, NoReturn

from shlo.errors import InterpreterError, ParseError, ShloError, UsageError
from shlo.ir.diagnostics import Diagnostic
from shlo.ir.source import BYTECODE_MAGIC, Source
from shlo.ir.text import split_top_level

PROG = "shlo-translate"


def _load(source: Source) -> tuple[Any, list[Diagnostic]]:
    """The input as an `ir.Module` in a fresh StableHLO-world context (text, bytecode, VHLO),
    or None and MLIR's diagnostics when it does not load.

    Check ops are rewritten to generic form and parsed as unregistered operations.
    """
    from shlo.ir.check_dialect import has_check_ops, to_generic
    from shlo.ir.diagnostics import DiagnosticSink
    from shlo.ir.module import diagnosed, parse_source
    from shlo.ir.stablehlo import WORLD, deserialize, ir
    from shlo.ir.worlds import ContextPolicy

    context = WORLD.make_context(ContextPolicy(allow_unregistered_dialects=True))

    def parse() -> Any:
        if _is_portable(source):
            try:
                return deserialize(context, source.data)
            except ValueError:  # the sink holds MLIR's reasons
                return None
        if source.is_bytecode:
            return ir.Module.parse(source.data, context)
        # Locations name the input file, as upstream's; check ops parse in generic form.
        text = source
        if has_check_ops(source.text):
            text = Source(source.name, to_generic(source.text).encode(), source.first_line)
        return parse_source(WORLD, context, text).operation

    with DiagnosticSink().attached(context) as sink:
        module, diagnostics = diagnosed(parse, source.is_bytecode)
    if source.is_bytecode:
        return module, [d.on_one_line() for d in sink.diagnostics] + diagnostics
    return module, sink.diagnostics + diagnostics


def _is_portable(source: Source) -> bool:
    """A portable artifact: VHLO bytecode, whose producer string names StableHLO."""
    return source.is_bytecode and b"StableHLO" in source.data[:32]


def _load_checked(source: Source, verify_diagnostics: bool) -> tuple[Any, list[Diagnostic]]:
    """`_load`, with its diagnostics kept for --verify-diagnostics; otherwise input that does
    not load is raised as mlir-opt reports it, and what a load that worked reported (warnings)
    goes to stderr."""
    from shlo.ir.module import report
    from shlo.ir.portable import newer_producer
    from shlo.ir.stablehlo import stablehlo_version

    module, diagnostics = _load(source)
    if verify_diagnostics:
        return module, diagnostics
    reasons = report(diagnostics, source)
    if module is not None:
        sys.stderr.write(reasons)
        return module, []
    if _is_portable(source):
        reasons += f"{PROG}: {source.name}: failed to deserialize portable artifact"
        producer = newer_producer(d.message for top in diagnostics for d in top.flattened())
        if producer:
            reasons += (
                f" (written by StableHLO {producer}; this build reads artifacts up to "
                f"{stablehlo_version()})"
            )
    raise ParseError(reasons.strip())


_ARGS_USAGE = "i.e. --args=[dense<1> : tensor<2xi32>, ...]"


def parse_args_list(text: str, context: Any) -> list[Any]:
    """`--args=[dense<...> : tensor<...>, ...]` as attributes, with upstream's rules and words
    (StablehloTranslateMain.cpp): empty is no arguments; else one array attribute whose elements
    are each a dense elements attribute."""
    from shlo.interpreter.evaluate import parse_argument
    from shlo.ir.stablehlo import ir

    if not text:
        return []
    body = text.strip()
    items = split_top_level(body[1:-1]) if body.startswith("[") and body.endswith("]") else None
    attributes = []
    for item in items or []:
        try:
            attribute = parse_argument(item, context)
        except ir.MLIRError:
            items = None
            break
        if attribute is None:
            raise UsageError(f"expected dense elements attribute for args elements, {_ARGS_USAGE}")
        attributes.append(attribute)
    if items is None:
        raise UsageError(f"expectected array attribute string for args, {_ARGS_USAGE}")
    return attributes


def _refine_error(module: Any, function: Any, arguments: list[Any]) -> bool:
    """Api.cpp's removeDynamism: an entry function with a dynamic parameter is refined to the
    --args' types (StableHLO's remove-dynamism pipeline) before its signature is checked; True
    when that fails."""
    from shlo.ir.stablehlo import ir, passmanager

    inputs = ir.TypeAttr(function.attributes["function_type"]).value.inputs
    if all(not isinstance(t, ir.ShapedType) or t.has_static_shape for t in inputs):
        return False
    types = ",".join(str(a.type) for a in arguments)
    pipeline = (
        f"builtin.module(stablehlo-refine-arguments{{types={types}}}, stablehlo-refine-shapes, "
        "func.func(stablehlo-canonicalize-dynamism))"
    )
    try:
        passmanager.PassManager.parse(pipeline, module.context).run(module.operation)
    except ir.MLIRError:
        return True
    return False


def interpret(
    module: Any, arguments: list[Any], name: str, probe_dir: str = "", timeout: float = 0
) -> tuple[list[str], list[Diagnostic]]:
    """Run the entry function (the only one, else @main, as upstream does) with its checks;
    returns the results' text and the failures as diagnostics."""
    from shlo.interpreter.evaluate import prepare, run_programs, signature_error
    from shlo.interpreter.unsupported import unsupported_ops
    from shlo.ir.diagnostics import line_column
    from shlo.ir.edit import functions

    by_name = functions(module)
    if not by_name:  # upstream's evalModule: nothing to run, nothing printed, success
        return [], []
    if "main" not in by_name and len(by_name) != 1:  # Api.cpp's getMainFunction
        line, column = line_column(module.operation.location)
        message = "module must have entry func with name main"
        return [], [Diagnostic("error", message, name, line, column)]
    entry = "main" if "main" in by_name else next(iter(by_name))
    if _refine_error(module, by_name[entry], arguments):
        line, column = line_column(by_name[entry].location)
        message = f"Failed to refine dynamic shape in function: {entry}"
        return [], [Diagnostic("error", message, name, line, column)]
    try:
        program = prepare(module)
    except InterpreterError as error:
        if error.location is None:
            raise UsageError(str(error)) from None
        line, column = line_column(error.location)
        return [], [Diagnostic("error", str(error), name, line, column)]
    mismatch = signature_error(module, program.entry, arguments)
    if mismatch is not None:  # at the entry function, as upstream emits it
        line, column = line_column(functions(module)[program.entry].location)
        return [], [Diagnostic("error", mismatch, name, line, column)]
    (outcome,) = run_programs([program], [str(a) for a in arguments], probe_dir, timeout)
    errors = []
    if outcome.error is not None:
        # Shown at the op the error names when shlo knows it, else at the entry function.
        named = [op for op, reason in unsupported_ops(module.operation) if reason == outcome.error]
        culprit = named[0] if named else functions(module)[program.entry]
        line, column = outcome.error_at or line_column(culprit.location)
        errors.append(Diagnostic("error", f"@{program.entry}: {outcome.error}", name, line, column))
    for failure in outcome.failures:
        check = failure.check
        errors.append(
            Diagnostic(
                "error",
                f"check.{check.kind} failed in @{check.function}: {failure.message}",
                name,
                check.line,
                check.column,
            )
        )
    return ([] if errors else outcome.results), errors


class _Parser(argparse.ArgumentParser):
    """Bad options are one line and exit 1, as LLVM's command-line library reports them;
    every long option is also spelled with one dash (`-interpret`), as LLVM accepts."""

    def error(self, message: str) -> NoReturn:
        message = message.partition(": ")[2] if " option: '" in message else message
        unknown = message.removeprefix("unrecognized arguments: ")
        if unknown != message:
            message = f"Unknown command line argument '{unknown.split()[0]}'.  Try: '{PROG} --help'"
        self.exit(1, f"{PROG}: {message}\n")

    def _add_action(self, action: Any) -> Any:
        names = action.option_strings
        action.option_strings = [*names, *(n[1:] for n in names if n.startswith("--"))]
        return super()._add_action(action)


def _seconds(text: str) -> float:
    """--timeout's value: a finite number of seconds, 0 for no limit."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(
            f"for the --timeout option: '{text}' value invalid: give seconds (0 for no limit)"
        )
    return value


# mlir-translate's printing switches that apply to what shlo-translate prints (IR).
_PRINT_SWITCHES = (
    ("--mlir-print-debuginfo", "print locations"),
    ("--mlir-pretty-debuginfo", "print locations in a pretty form"),
    ("--mlir-print-op-generic", "print the generic op form"),
    ("--mlir-print-local-scope", "print with local scope"),
    ("--mlir-use-nameloc-as-prefix", "name SSA values after their NameLocs"),
    ("--mlir-print-assume-verified", "print without verifying first"),
    ("--mlir-print-skip-regions", "print ops without their regions"),
)


def _uint(flag: str) -> Any:
    """An argparse type for an LLVM uint option, in LLVM's words when the value is not one."""

    def parse(text: str) -> int:
        if not text.isdigit():
            raise argparse.ArgumentTypeError(
                f"for the {flag} option: '{text}' value invalid for uint argument!"
            )
        return int(text)

    return parse


def _artifact_version(data: bytes) -> str | None:
    """The StableHLO version in a portable artifact's producer string (`MLïRStableHLO_vX.Y.Z`),
    read as upstream's getPortableArtifactVersion reads it; None when there is none."""
    import re

    header = data.split(b"\0", 1)[0]
    if len(data) < 19 or not header.startswith(BYTECODE_MAGIC) or b"\0" not in data:
        return None
    found = re.search(rb"StableHLO_v(\d+)\.(\d+)\.(\d+)$", header)
    return ".".join(part.decode() for part in found.groups()) if found else None


def normalize_argv(words: list[str]) -> list[str]:
    """`--verify-diagnostics=LEVEL` (an enum option in mlir-translate) and
    `--split-input-file=MARKER` (a string option whose bare form is the default marker) as
    argparse flags."""
    from shlo.tools.opt_main import diagnostic_level

    normalized = []
    for word in words:
        flag, has_value, value = word.partition("=")
        if has_value and flag in ("--verify-diagnostics", "-verify-diagnostics"):
            level = diagnostic_level("--verify-diagnostics", value)
            normalized += ["--verify-diagnostics", f"--verify-diagnostics-level={level}"]
        elif has_value and flag in ("--split-input-file", "-split-input-file"):
            marker = [f"--input-split-marker={value}"] if value else []
            normalized += ["--split-input-file", *marker]
        else:
            normalized.append(word)
    return normalized


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("input", nargs="?", default="-")
    parser.add_argument("-o", "--output", default="-")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--interpret", action="store_true", help="run @main in the interpreter")
    mode.add_argument("--serialize", action="store_true", help="write a portable artifact")
    mode.add_argument("--deserialize", action="store_true", help="read a portable artifact")
    parser.add_argument(
        "--print-stablehlo-version",
        action="store_true",
        help="with --deserialize: print the artifact's version first; alone: this build's",
    )
    parser.add_argument(
        "--allow-unregistered-dialect",
        action="store_true",
        help="accepted for mlir-translate's RUN lines; unregistered ops always parse",
    )
    parser.add_argument(
        "--mlir-disable-threading",
        action="store_true",
        help="accepted as mlir-translate takes it; what is printed does not change",
    )
    for flag, text in _PRINT_SWITCHES:
        parser.add_argument(flag, action="store_true", help=text)
    parser.add_argument(
        "--mlir-elide-elementsattrs-if-larger",
        type=_uint("--mlir-elide-elementsattrs-if-larger"),
        metavar="N",
        help="elide constants with more than N elements in printed IR",
    )
    parser.add_argument(
        "--mlir-elide-resource-strings-if-larger",
        type=_uint("--mlir-elide-resource-strings-if-larger"),
        metavar="N",
        help="elide resource blobs longer than N characters in printed IR",
    )
    parser.add_argument("--args", default="", help="arguments of @main for --interpret")
    parser.add_argument(
        "--interpreter-print-dense",
        action="store_true",
        help="print results as elements attributes (dense<...> : tensor<...>)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=0,
        metavar="SECONDS",
        help="with --interpret: stop a program that runs longer (default: no limit)",
    )
    parser.add_argument("--target", default="current", help="version, current or minimum")
    parser.add_argument("--strip-debuginfo", action="store_true")
    parser.add_argument("--allow-other-dialects", action="store_true")
    parser.add_argument(
        "--probe-output-dir",
        default="",
        help="where interpreter.probe ops write their values (.npy)",
    )
    parser.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check MLIR's diagnostics against expected-* comments (=all or =only-expected)",
    )
    parser.add_argument("--verify-diagnostics-level", default="all", help=argparse.SUPPRESS)
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="translate each '// -----' chunk on its own (=MARKER for another marker)",
    )
    parser.add_argument("--input-split-marker", default="// -----", help=argparse.SUPPRESS)
    parser.add_argument(
        "--output-split-marker",
        default="",
        help="with --split-input-file: a line between the chunks' outputs (default: empty)",
    )
    return parser


def _interpret(chunk: Source, args: argparse.Namespace, whole: Source, output: BinaryIO) -> bool:
    from shlo.interpreter.tensor_text import interpreter_layout
    from shlo.ir.diagnostics import format_all

    try:
        module, diagnostics = _load_checked(chunk, args.verify_diagnostics)
        if module is None:  # under --verify-diagnostics, which judges why
            return _verified(chunk, diagnostics, _only_expected(args))
        arguments = parse_args_list(args.args, module.context)
        printed, errors = interpret(
            module, arguments, chunk.name, args.probe_output_dir, args.timeout
        )
    except ShloError as error:
        print(error if error.located else f"{PROG}: {error}", file=sys.stderr)
        return False
    shown = printed if args.interpreter_print_dense else map(interpreter_layout, printed)
    output.write("".join(text + "\n" for text in shown).encode())
    output.flush()
    if args.verify_diagnostics:
        return _verified(chunk, diagnostics + errors, _only_expected(args))
    sys.stderr.write(format_all(errors, {whole.name: whole.text} if errors else {}))
    return not errors


def _verified(source: Source, diagnostics: list[Diagnostic], only_expected: bool) -> bool:
    """--verify-diagnostics: report what differs from the input's expected-* comments."""
    from shlo.ir.module import UNNAMED, report
    from shlo.ir.verify_diagnostics import verify

    problems = verify(source, [d.renamed(UNNAMED, source.name) for d in diagnostics], only_expected)
    sys.stderr.write(report(problems, source))
    return not problems


def _only_expected(args: argparse.Namespace) -> bool:
    return bool(args.verify_diagnostics_level == "only-expected")


def _run(args: argparse.Namespace, argv: list[str], isolate: bool) -> int:
    from shlo.ir.output import AtomicOutput
    from shlo.ir.source import read_source, split_source
    from shlo.ir.stablehlo import stablehlo_version
    from shlo.tools.native_guard import run_guarded

    if args.print_stablehlo_version and not (args.interpret or args.serialize or args.deserialize):
        print(f"Current version: {stablehlo_version()}")
        return 0
    source = read_source(args.input)
    if args.deserialize and args.print_stablehlo_version:  # on stdout, as upstream (not to -o)
        version = _artifact_version(source.data)
        print(
            "// Failed parsing StableHLO version from portable artifact"
            if version is None
            else f"// Reading portable artifact with StableHLO version: {version}",
            flush=True,
        )
    if source.is_bytecode:
        from shlo.ir.bytecode_guard import check_bytecode

        check_bytecode(source.data, source.name)
    split = args.split_input_file and not source.is_bytecode
    chunks = split_source(source, args.input_split_marker) if split else [source]
    separator = (args.output_split_marker + "\n").encode()  # as MLIR's splitAndProcessBuffer
    with AtomicOutput(args.output) as out:

        def step(index: int) -> bool:
            try:
                out.stream.write(separator if index else b"")
                if args.interpret:
                    done = _interpret(chunks[index], args, source, out.stream)
                else:
                    done = _translate(chunks[index], args, out.stream)
                out.stream.flush()  # the child leaves by os._exit, which flushes nothing
            except OSError as error:  # a full disk, named with the output's path
                raise out.named(error) from None
            return done

        status = run_guarded(PROG, chunks, step, argv, args.input, split=split, isolate=isolate)
        if status == 0 or (status == 1 and args.interpret and args.output == "-"):
            out.commit()
    return status


def _translate(source: Source, args: argparse.Namespace, output: BinaryIO) -> bool:
    """Serialize, deserialize or print `source`; False when it does not load or verify."""
    from shlo.ir.module import IRModule
    from shlo.ir.portable import serialize
    from shlo.ir.stablehlo import WORLD, passmanager
    from shlo.tools.opt_pipeline import print_options

    module, diagnostics = _load_checked(source, args.verify_diagnostics)
    if args.verify_diagnostics:
        verified = _verified(source, diagnostics, _only_expected(args))
        if module is None or not verified:
            return verified
    if args.strip_debuginfo:
        passmanager.PassManager.parse("builtin.module(strip-debuginfo)", module.context).run(
            module.operation
        )
    ir_module = IRModule(WORLD, module.context, module.operation)
    if args.serialize:
        output.write(serialize(ir_module, args.target, args.allow_other_dialects, source.name))
    else:
        ir_module.write(output, print_options(args))  # assume-verified: IR is verified
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """The command.  Run as one (no `argv`), the work runs in a forked child, so that a crash
    in MLIR's native code is reported (`native_guard`); given `argv` from Python, in this
    process."""
    from shlo.tools.reporting import run_reporting

    words = list(sys.argv[1:] if argv is None else argv)
    try:
        normalized = normalize_argv(words)
    except ShloError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    args = build_parser().parse_args(normalized)
    return run_reporting(PROG, lambda: _run(args, words, isolate=argv is None))


if __name__ == "__main__":
    sys.exit(main())
