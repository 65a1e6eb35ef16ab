"""`shlo-translate`: portable artifacts and the StableHLO reference interpreter.

    shlo-translate model.mlir --serialize --target=1.0.0 -o model.vhlo
    shlo-translate model.vhlo --deserialize
    shlo-translate model.mlir --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>]'
    shlo-translate --print-stablehlo-version

The check dialect (check.expect_eq, ...) is not implemented yet.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from shlo.pipeline_syntax import split_top_level

PROG = "shlo-translate"


class TranslateError(Exception):
    """A problem with the input or the request: `shlo-translate: message`, exit 1."""


def _version_tuple(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        raise TranslateError(f"target '{version}' is not a version like 1.0.0") from None


def resolve_target(target: str) -> str:
    """`current`, `minimum` or a version, checked against what the bindings can write."""
    from shlo.stablehlo_world import minimum_version, stablehlo_version

    low, high = minimum_version(), stablehlo_version()
    version = {"current": high, "minimum": low}.get(target, target)
    if not _version_tuple(low) <= _version_tuple(version) <= _version_tuple(high):
        raise TranslateError(
            f"target version {version} is outside the supported range "
            f"{low} to {high} (torch-mlir's StableHLO)"
        )
    return version


def _load(path: str) -> Any:
    """The input as an `ir.Module` in a fresh StableHLO-world context (text, bytecode, VHLO)."""
    from shlo.diagnostics import format_all, from_mlir_error
    from shlo.source import read_source
    from shlo.stablehlo_world import WORLD, deserialize, ir
    from shlo.world import ContextPolicy

    source = read_source(path)
    context = WORLD.make_context(ContextPolicy())
    try:
        if source.is_bytecode and b"StableHLO" in source.data[:32]:
            return deserialize(context, source.data)
        return ir.Module.parse(source.data if source.is_bytecode else source.text, context)
    except ir.MLIRError as error:
        text = {} if source.is_bytecode else {"-": source.text}
        raise TranslateError(format_all(from_mlir_error(error), text).strip()) from None


def parse_args_list(text: str, context: Any) -> list[Any]:
    """`--args=[dense<...> : tensor<...>, ...]` as attributes."""
    from shlo.stablehlo_world import ir

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


def _main_signature(module: Any) -> Any:
    from shlo.stablehlo_world import ir

    for op in module.body.operations:
        if (
            op.operation.name == "func.func"
            and ir.StringAttr(op.attributes["sym_name"]).value == "main"
        ):
            return ir.TypeAttr(op.attributes["function_type"]).value
    raise TranslateError("no function @main: --interpret runs @main")


def interpret(module: Any, arguments: list[Any]) -> list[str]:
    """Run @main with the reference interpreter after checking what would abort it."""
    from shlo.stablehlo_world import evaluate

    signature = _main_signature(module)
    inputs, results = list(signature.inputs), list(signature.results)
    if len(arguments) != len(inputs):
        raise TranslateError(f"@main takes {len(inputs)} arguments, --args gave {len(arguments)}")
    for index, (argument, expected) in enumerate(zip(arguments, inputs, strict=True)):
        if str(argument.type) != str(expected):
            raise TranslateError(f"argument {index}: expected {expected}, got {argument.type}")
    if any("complex" in str(result) for result in results):
        raise TranslateError(
            "@main returns complex numbers, on which the interpreter binding "
            "aborts the process; return real and imaginary parts instead"
        )
    return [str(result) for result in evaluate(module, arguments)]


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
    parser.add_argument("--target", default="current", help="version, current or minimum")
    parser.add_argument("--strip-debuginfo", action="store_true")
    parser.add_argument("--allow-other-dialects", action="store_true")
    return parser


def _run(args: argparse.Namespace) -> int:
    from shlo.output import AtomicOutput
    from shlo.stablehlo_world import serialize, stablehlo_version

    if args.print_stablehlo_version:
        print(f"Current version: {stablehlo_version()}")
        return 0
    module = _load(args.input)
    if args.strip_debuginfo:
        from shlo.stablehlo_world import passmanager

        passmanager.PassManager.parse("builtin.module(strip-debuginfo)", module.context).run(
            module.operation
        )
    if args.interpret:
        print("\n".join(interpret(module, parse_args_list(args.args, module.context))))
        return 0
    with AtomicOutput(args.output) as out:
        if args.serialize:
            try:
                out.stream.write(
                    serialize(module, resolve_target(args.target), args.allow_other_dialects)
                )
            except ValueError:
                raise TranslateError(
                    "cannot serialize: the module is not pure StableHLO "
                    "(use --allow-other-dialects)"
                ) from None
        else:
            out.stream.write(str(module).encode() + b"\n")
        out.commit()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from shlo.source import InputError

    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (TranslateError, InputError) as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
