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

from shlo.errors import ShloError
from shlo.ir.diagnostics import Diagnostic
from shlo.ir.source import Source
from shlo.ir.text import split_top_level

PROG = "shlo-translate"


class TranslateError(ShloError):
    """A problem with the input or the request: `shlo-translate: message`, exit 1."""


def _load(source: Source) -> tuple[Any, list[Diagnostic]]:
    """The input as an `ir.Module` in a fresh StableHLO-world context (text, bytecode, VHLO),
    or None and MLIR's diagnostics when it does not load.

    Check ops are rewritten to generic form and parsed as unregistered operations.
    """
    from shlo.ir.check_dialect import to_generic
    from shlo.ir.diagnostics import DiagnosticSink
    from shlo.ir.module import diagnosed
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
        return ir.Module.parse(to_generic(source.padded_text()), context)

    with DiagnosticSink().attached(context) as sink:
        module, diagnostics = diagnosed(parse)
    return module, sink.diagnostics + diagnostics


def _is_portable(source: Source) -> bool:
    """A portable artifact: VHLO bytecode, whose producer string names StableHLO."""
    return source.is_bytecode and b"StableHLO" in source.data[:32]


def _load_checked(source: Source, verify_diagnostics: bool) -> tuple[Any, list[Diagnostic]]:
    """`_load`, with its diagnostics kept for --verify-diagnostics; otherwise input that does
    not load is raised as mlir-opt reports it, and what a load that worked reported (warnings)
    goes to stderr."""
    from shlo.ir.module import ParseError, report
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


def parse_args_list(text: str, context: Any) -> list[Any]:
    """`--args=[dense<...> : tensor<...>, ...]` as attributes."""
    from shlo.ir.stablehlo import ir

    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise TranslateError("--args must be a list: [dense<...> : tensor<...>, ...]")
    attributes = []
    for index, item in enumerate(split_top_level(body[1:-1])):
        try:
            attributes.append(ir.Attribute.parse(item, context))
        except ir.MLIRError:
            raise TranslateError(f"--args: argument {index} '{item}' is not an attribute") from None
        except TypeError:  # the bindings hand over no complex elements attributes
            raise TranslateError(
                f"--args: argument {index}: complex arguments cannot be handed to the interpreter "
                "binding; pass their real and imaginary parts and build them with stablehlo.complex"
            ) from None
    return attributes


def _check_arguments(module: Any, entry: str, arguments: list[Any]) -> None:
    """The --args must match the entry function's parameters in number and type."""
    from shlo.ir.edit import functions
    from shlo.ir.stablehlo import ir

    signature = ir.TypeAttr(functions(module)[entry].attributes["function_type"]).value
    inputs = list(signature.inputs)
    if len(arguments) != len(inputs):
        raise TranslateError(
            f"@{entry} takes {len(inputs)} arguments, --args gave {len(arguments)}"
        )
    for index, (argument, expected) in enumerate(zip(arguments, inputs, strict=True)):
        if str(argument.type) != str(expected):
            raise TranslateError(f"argument {index}: expected {expected}, got {argument.type}")


def interpret(
    module: Any, arguments: list[Any], name: str, probe_dir: str = "", timeout: float = 0
) -> tuple[list[str], list[Diagnostic]]:
    """Run the entry function (the only one, else @main, as upstream does) with its checks;
    returns the results' text and the failures as diagnostics."""
    from shlo.interpreter.evaluate import InterpreterError, prepare, run_programs
    from shlo.interpreter.unsupported import unsupported_ops
    from shlo.ir.diagnostics import line_column
    from shlo.ir.edit import functions

    try:
        program = prepare(module)
    except InterpreterError as error:
        if error.location is None:
            raise TranslateError(str(error)) from None
        line, column = line_column(error.location)
        return [], [Diagnostic("error", str(error), name, line, column)]
    _check_arguments(module, program.entry, arguments)
    (outcome,) = run_programs([program], [str(a) for a in arguments], probe_dir, timeout)
    errors = []
    if outcome.error is not None:
        # Shown at the op the error names when shlo knows it, else at the entry function.
        named = [op for op, reason in unsupported_ops(module.operation) if reason == outcome.error]
        culprit = named[0] if named else functions(module)[program.entry]
        line, column = line_column(culprit.location)
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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("input", nargs="?", default="-")
    parser.add_argument("-o", "--output", default="-")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--interpret", action="store_true", help="run @main in the interpreter")
    mode.add_argument("--serialize", action="store_true", help="write a portable artifact")
    mode.add_argument("--deserialize", action="store_true", help="read a portable artifact")
    mode.add_argument("--print-stablehlo-version", action="store_true")
    parser.add_argument("--args", default="[]", help="arguments of @main for --interpret")
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
        help="check MLIR's diagnostics against expected-* comments in the input",
    )
    parser.add_argument(
        "--split-input-file",
        action="store_true",
        help="with --interpret: run each '// -----' chunk on its own",
    )
    return parser


def _interpret(chunk: Source, args: argparse.Namespace, whole: Source, output: BinaryIO) -> bool:
    from shlo.interpreter.tensor_text import interpreter_layout
    from shlo.ir.diagnostics import format_all

    try:
        module, diagnostics = _load_checked(chunk, args.verify_diagnostics)
        if module is None:  # under --verify-diagnostics, which judges why
            return _verified(chunk, diagnostics)
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
        return _verified(chunk, diagnostics + errors)
    sys.stderr.write(format_all(errors, {whole.name: whole.text} if errors else {}))
    return not errors


def _verified(source: Source, diagnostics: list[Diagnostic]) -> bool:
    """--verify-diagnostics: report what differs from the input's expected-* comments."""
    from shlo.ir.module import UNNAMED, report
    from shlo.ir.verify_diagnostics import verify

    problems = verify(source, [d.renamed(UNNAMED, source.name) for d in diagnostics])
    sys.stderr.write(report(problems, source))
    return not problems


def _run(args: argparse.Namespace, argv: list[str], isolate: bool) -> int:
    from shlo.ir.output import AtomicOutput
    from shlo.ir.source import read_source, split_source
    from shlo.ir.stablehlo import stablehlo_version
    from shlo.tools.native_guard import run_guarded

    if args.print_stablehlo_version:
        print(f"Current version: {stablehlo_version()}")
        return 0
    source = read_source(args.input)
    if source.is_bytecode:
        from shlo.ir.bytecode_guard import check_bytecode

        check_bytecode(source.data, source.name)
    split = args.interpret and args.split_input_file
    chunks = split_source(source, "// -----") if split else [source]
    with AtomicOutput(args.output) as out:

        def step(index: int) -> bool:
            if args.interpret:
                done = _interpret(chunks[index], args, source, out.stream)
            else:
                done = _translate(source, args, out.stream)
            out.stream.flush()  # the child leaves by os._exit, which flushes nothing
            return done

        status = run_guarded(PROG, chunks, step, argv, args.input, split=split, isolate=isolate)
        if status == 0 or (status == 1 and args.interpret and args.output == "-"):
            out.commit()
    return status


def _translate(source: Source, args: argparse.Namespace, output: BinaryIO) -> bool:
    """Serialize, deserialize or print `source`; False when it does not load or verify."""
    from shlo.ir.check_dialect import to_custom
    from shlo.ir.module import IRModule
    from shlo.ir.portable import serialize
    from shlo.ir.stablehlo import WORLD, passmanager

    module, diagnostics = _load_checked(source, args.verify_diagnostics)
    if args.verify_diagnostics:
        verified = _verified(source, diagnostics)
        if module is None or not verified:
            return verified
    if args.strip_debuginfo:
        passmanager.PassManager.parse("builtin.module(strip-debuginfo)", module.context).run(
            module.operation
        )
    if args.serialize:
        ir_module = IRModule(WORLD, module.context, module.operation)
        output.write(serialize(ir_module, args.target, args.allow_other_dialects, source.name))
    else:
        output.write(to_custom(str(module)).encode() + b"\n")
    return True


def main(argv: Sequence[str] | None = None) -> int:
    """The command.  Run as one (no `argv`), the work runs in a forked child, so that a crash
    in MLIR's native code is reported (`native_guard`); given `argv` from Python, in this
    process."""
    from shlo.tools.reporting import run_reporting

    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(words)
    return run_reporting(PROG, lambda: _run(args, words, isolate=argv is None))


if __name__ == "__main__":
    sys.exit(main())
