"""`shlo-translate`: portable artifacts and the StableHLO reference interpreter.

    shlo-translate model.mlir --serialize --target=1.0.0 -o model.vhlo
    shlo-translate model.vhlo --deserialize
    shlo-translate model.mlir --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>]'
    shlo-translate --print-stablehlo-version

With no --args, --interpret runs every public function that takes no arguments and evaluates
its `check` ops (expect_eq, expect_eq_const, expect_almost_eq[_const], expect_close).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO

from shlo.errors import ShloError
from shlo.ir.diagnostics import Diagnostic
from shlo.ir.source import Source
from shlo.ir.text import split_top_level

PROG = "shlo-translate"


class TranslateError(ShloError):
    """A problem with the input or the request: `shlo-translate: message`, exit 1."""


def _load(source: Source) -> Any:
    """The input as an `ir.Module` in a fresh StableHLO-world context (text, bytecode, VHLO).

    Check ops are rewritten to generic form and parsed as unregistered operations.
    """
    from shlo.ir.check_dialect import to_generic
    from shlo.ir.module import diagnosed, report
    from shlo.ir.stablehlo import WORLD, deserialize, ir
    from shlo.ir.worlds import ContextPolicy

    context = WORLD.make_context(ContextPolicy(allow_unregistered_dialects=True))

    def parse() -> Any:
        if source.is_bytecode and b"StableHLO" in source.data[:32]:
            return deserialize(context, source.data)
        if source.is_bytecode:
            return ir.Module.parse(source.data, context)
        return ir.Module.parse(to_generic(source.padded_text()), context)

    module, diagnostics = diagnosed(parse)
    if module is None:
        raise TranslateError(report(diagnostics, source).strip())
    return module


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
    return attributes


def _targets(module: Any, arguments: list[Any]) -> list[str]:
    """@main when arguments are given (checked against its signature), else every function
    that takes none, as stablehlo-translate runs a test file."""
    from shlo.ir.edit import functions
    from shlo.ir.stablehlo import ir

    named = functions(module)
    signatures = {n: ir.TypeAttr(f.attributes["function_type"]).value for n, f in named.items()}
    if not arguments:
        return [
            n
            for n, sig in signatures.items()
            if not list(sig.inputs) and "sym_visibility" not in named[n].attributes
        ]
    if "main" not in signatures:
        raise TranslateError("no function @main: --args are for @main")
    inputs = list(signatures["main"].inputs)
    if len(arguments) != len(inputs):
        raise TranslateError(f"@main takes {len(inputs)} arguments, --args gave {len(arguments)}")
    for index, (argument, expected) in enumerate(zip(arguments, inputs, strict=True)):
        if str(argument.type) != str(expected):
            raise TranslateError(f"argument {index}: expected {expected}, got {argument.type}")
    return ["main"]


def interpret(
    module: Any, arguments: list[Any], name: str, probe_dir: str = ""
) -> tuple[list[str], list[Diagnostic]]:
    """Run the targets; returns the results' text and the failures as diagnostics."""
    from shlo.interpreter.checks import evaluate_check
    from shlo.interpreter.evaluate import as_main, run_isolated
    from shlo.interpreter.unsupported import unsupported_ops
    from shlo.ir.diagnostics import line_column
    from shlo.ir.edit import functions

    targets = _targets(module, arguments)
    complex_results = [
        t
        for t in targets
        if "complex" in str(functions(module)[t].attributes["function_type"]).split("->")[-1]
    ]
    if complex_results:
        raise TranslateError(
            f"@{complex_results[0]} returns complex numbers, on which the "
            "interpreter binding aborts the process; return real and "
            "imaginary parts instead"
        )
    prepared = [as_main(module, target, with_checks=True) for target in targets]
    outcomes = run_isolated(
        [bytecode for bytecode, _ in prepared], [str(a) for a in arguments], probe_dir
    )
    printed, errors = [], []
    for target, (_, checks), outcome in zip(targets, prepared, outcomes, strict=True):
        if isinstance(outcome, str):
            function = functions(module)[target]
            known = unsupported_ops(function)  # the likeliest cause, at its own location
            culprit, outcome = known[0] if known else (function, outcome)
            line, column = line_column(culprit.location)
            errors.append(Diagnostic("error", f"@{target}: {outcome}", name, line, column))
            continue
        checked = sum(check.operands for check in checks)
        printed += outcome[: len(outcome) - checked]
        values = outcome[len(outcome) - checked :]
        for check in checks:
            problem = evaluate_check(check, values[: check.operands], module.context)
            values = values[check.operands :]
            if problem:
                errors.append(
                    Diagnostic(
                        "error",
                        f"check.{check.kind} failed in @{target}: {problem}",
                        name,
                        check.line,
                        check.column,
                    )
                )
    return printed, errors


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
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
    parser.add_argument("--target", default="current", help="version, current or minimum")
    parser.add_argument("--strip-debuginfo", action="store_true")
    parser.add_argument("--allow-other-dialects", action="store_true")
    parser.add_argument(
        "--probe-output-dir",
        default="",
        help="where interpreter.probe ops write their values (.npy)",
    )
    parser.add_argument(
        "--split-input-file",
        "-split-input-file",
        action="store_true",
        help="with --interpret: run each '// -----' chunk on its own",
    )
    return parser


def _interpret(chunk: Source, args: argparse.Namespace, whole: Source, output: BinaryIO) -> bool:
    from shlo.interpreter.tensor_text import interpreter_layout
    from shlo.ir.diagnostics import format_all

    try:
        module = _load(chunk)
        arguments = parse_args_list(args.args, module.context)
        printed, errors = interpret(module, arguments, chunk.name, args.probe_output_dir)
    except TranslateError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return False
    shown = printed if args.interpreter_print_dense else map(interpreter_layout, printed)
    output.write("".join(text + "\n" for text in shown).encode())
    output.flush()
    sys.stderr.write(format_all(errors, {whole.name: whole.text} if errors else {}))
    return not errors


def _run(args: argparse.Namespace) -> int:
    from shlo.ir.check_dialect import to_custom
    from shlo.ir.module import IRModule
    from shlo.ir.output import AtomicOutput
    from shlo.ir.portable import serialize
    from shlo.ir.source import read_source, split_source
    from shlo.ir.stablehlo import WORLD, passmanager, stablehlo_version

    if args.print_stablehlo_version:
        print(f"Current version: {stablehlo_version()}")
        return 0
    source = read_source(args.input)
    if args.interpret:
        chunks = split_source(source, "// -----") if args.split_input_file else [source]
        with AtomicOutput(args.output) as out:
            ok = all([_interpret(chunk, args, source, out.stream) for chunk in chunks])
            if ok or args.output == "-":
                out.commit()
        return 0 if ok else 1
    module = _load(source)
    if args.strip_debuginfo:
        passmanager.PassManager.parse("builtin.module(strip-debuginfo)", module.context).run(
            module.operation
        )
    with AtomicOutput(args.output) as out:
        if args.serialize:
            ir_module = IRModule(WORLD, module.context, module.operation)
            out.stream.write(serialize(ir_module, args.target, args.allow_other_dialects))
        else:
            out.stream.write(to_custom(str(module)).encode() + b"\n")
        out.commit()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from shlo.tools.reporting import run_reporting

    args = build_parser().parse_args(argv)
    return run_reporting(PROG, lambda: _run(args))


if __name__ == "__main__":
    sys.exit(main())
