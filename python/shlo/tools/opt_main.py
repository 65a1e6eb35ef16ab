"""`shlo-opt`: stablehlo-opt/mlir-opt's command line on the MLIR Python bindings.

Upstream RUN lines work by swapping the tool name: same flags (single or double dash), passes
as flags in command-line order or as `--pass-pipeline=`, the same output and diagnostics.
"""

from __future__ import annotations

import sys
from typing import Any

from shlo.errors import UsageError

TYPE_CHECKING = False  # `typing` costs start-up; `--version` must start like a native tool
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from shlo.ir.source import Source
    from shlo.tools.opt_pipeline import OptPipeline

PROG = "shlo-opt"
_EPILOG = """Every registered pass is also a flag: --NAME or --NAME='opt=value opt2=value'
(see --list-passes).  Passes given as flags run in command-line order."""


# mlir-opt's on/off flags that shlo-opt takes, with their help text.
_SWITCHES = (
    (
        "--split-input-file",
        "process each chunk between '// -----' lines on its own (=MARKER for another marker)",
    ),
    ("--verify-diagnostics", "check diagnostics against expected-* comments in the input"),
    ("--allow-unregistered-dialect", "allow operations of unregistered dialects"),
    ("--mlir-print-op-generic", "print the generic op form"),
    ("--mlir-print-debuginfo", "print locations"),
    ("--mlir-print-local-scope", "print with local scope"),
    ("--mlir-pretty-debuginfo", "print locations in a pretty form"),
    ("--mlir-use-nameloc-as-prefix", "name SSA values after their NameLocs"),
    ("--mlir-print-skip-regions", "print ops without their regions"),
    ("--mlir-print-assume-verified", "print without verifying first (IR is verified already)"),
    ("--emit-bytecode", "write MLIR bytecode"),
    ("--mlir-print-ir-before-all", "print the IR before every pass"),
    ("--mlir-print-ir-after-all", "print the IR after every pass"),
    ("--mlir-print-ir-after-change", "with after-all: only passes that changed the IR"),
    ("--mlir-print-ir-after-failure", "print the IR after a pass that failed"),
    ("--mlir-print-ir-module-scope", "print the whole module (needs --mlir-disable-threading)"),
    ("--mlir-timing", "print pass timing"),
    ("--mlir-pass-statistics", "print pass statistics"),
    ("--mlir-disable-threading", "run on one thread"),
    ("--verify-each", "verify the IR after every pass (on by default; =false to skip)"),
    ("--run-reproducer", "run the pipeline a reproducer file records (mlir_reproducer)"),
    ("--no-reproducer", "write no reproducer when a pass fails"),
    ("--dump-pass-pipeline", "print the pipeline as segments and where each runs"),
    ("--list-passes", "print every pass, where it comes from and its options"),
    ("--version", "print the versions of shlo and the wheels it drives"),
)


def _llvm_integer(flag: str, kind: str) -> Callable[[str], int]:
    """An argparse type for an LLVM integer option: a bad value is one line in LLVM's words and
    exit 1 (argparse's own error is its usage text and exit 2)."""

    def parse(text: str) -> int:
        try:
            value: int | None = int(text, 0)
        except ValueError:
            value = None
        if value is None or (kind == "uint" and value < 0):
            raise UsageError(f"for the {flag} option: '{text}' value invalid for {kind} argument!")
        return value

    return parse


# Flags that take a value, with their help text and argparse settings.
_VALUED: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (
        ("-o", "--output"),
        {"default": "-", "help": "output file, written atomically ('-' for stdout)"},
    ),
    (
        ("--pass-pipeline",),
        {"help": "textual pipeline, e.g. 'builtin.module(inline, canonicalize)'"},
    ),
    (("--input-split-marker",), {}),  # set by --split-input-file=MARKER
    (("--verify-diagnostics-level",), {"default": "all"}),  # set by --verify-diagnostics=LEVEL
    (("--output-split-marker",), {"help": "marker between outputs"}),
    (
        ("--mlir-elide-elementsattrs-if-larger",),
        {
            "type": _llvm_integer("--mlir-elide-elementsattrs-if-larger", "uint"),
            "metavar": "N",
            "help": "elide constants with more than N elements",
        },
    ),
    (
        ("--mlir-elide-resource-strings-if-larger",),
        {
            "type": _llvm_integer("--mlir-elide-resource-strings-if-larger", "uint"),
            "metavar": "N",
            "help": "elide resource blobs longer than N characters",
        },
    ),
    (
        ("--emit-bytecode-version",),
        {
            "type": _llvm_integer("--emit-bytecode-version", "integer"),
            "metavar": "N",
            "help": "with --emit-bytecode: write bytecode version N",
        },
    ),
    (
        ("--mlir-print-ir-before",),
        {"action": "append", "default": [], "metavar": "PASS", "help": "print the IR before PASS"},
    ),
    (
        ("--mlir-print-ir-after",),
        {"action": "append", "default": [], "metavar": "PASS", "help": "print the IR after PASS"},
    ),
    (
        ("--mlir-print-ir-tree-dir",),
        {"metavar": "DIR", "help": "print the IR dumps as a file tree under DIR"},
    ),
    (
        ("--mlir-pass-pipeline-crash-reproducer",),
        {"metavar": "FILE", "help": "where a failing pipeline's reproducer goes"},
    ),
)
_ON_BY_DEFAULT = {"--verify-each"}
_OPTIONS = {
    "-h",
    "--help",
    *(flag for flags, _ in _VALUED for flag in flags),
    *(flag for flag, _ in _SWITCHES),
    *("--no-" + flag[2:] for flag in _ON_BY_DEFAULT),
}
# LLVM's parser<bool> spellings; anything else is an error.
_TRUE, _FALSE = {"true", "TRUE", "True", "1"}, {"false", "FALSE", "False", "0"}

_SWITCHES_BY_NAME = {flag for flag, _ in _SWITCHES}


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from shlo.ir.source import DEFAULT_SPLIT_MARKER

    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        epilog=_EPILOG,
        description="MLIR modular optimizer driver for StableHLO",
    )
    add = parser.add_argument
    add("input", nargs="?", default="-", help="input file, text or bytecode ('-' for stdin)")
    for flags, settings in _VALUED:
        add(*flags, **{"help": argparse.SUPPRESS, **settings})
    parser.set_defaults(
        input_split_marker=DEFAULT_SPLIT_MARKER, output_split_marker=DEFAULT_SPLIT_MARKER
    )
    for flag, text in _SWITCHES:
        if flag in _ON_BY_DEFAULT:
            add(flag, action=argparse.BooleanOptionalAction, default=True, help=text)
        else:
            add(flag, action="store_true", help=text)
    return parser


def diagnostic_level(flag: str, value: str) -> str:
    """The level `--verify-diagnostics=VALUE` asks for, in LLVM's words when it names none."""
    from shlo.ir.verify_diagnostics import DIAGNOSTIC_LEVELS

    if value not in DIAGNOSTIC_LEVELS:
        raise UsageError(f"for the {flag} option: Cannot find option named '{value}'!")
    return DIAGNOSTIC_LEVELS[value]


def normalize_argv(argv: Sequence[str]) -> list[str]:
    """LLVM's spellings for argparse: `-flag` as `--flag`, `-o=FILE`, `--switch=true|false`,
    `--split-input-file[=MARKER]` (a string option: any value is the marker, none the default)
    and `--verify-diagnostics[=all|only-expected]` (an enum option)."""
    normalized = []
    for arg in argv:
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 2:
            arg = "-o" + arg[2:] if arg.startswith("-o=") else "-" + arg
        flag, has_value, value = arg.partition("=")
        if flag == "-o" and has_value:
            normalized += ["-o", value]
        elif flag == "--split-input-file" and has_value:
            normalized += [flag, f"--input-split-marker={value}"] if value else [flag]
        elif flag == "--verify-diagnostics" and has_value:
            normalized += [flag, f"--verify-diagnostics-level={diagnostic_level(flag, value)}"]
        elif flag in _SWITCHES_BY_NAME and has_value:
            if value not in _TRUE | _FALSE:
                raise UsageError(
                    f"for the {flag} option: '{value}' is invalid value for boolean argument! "
                    "Try 0 or 1"
                )
            on = value in _TRUE
            normalized += [flag] if on else ["--no-" + flag[2:]] if flag in _ON_BY_DEFAULT else []
        else:
            normalized.append(arg)
    return normalized


def main(argv: Sequence[str] | None = None) -> int:
    """The command.  Run as one (no `argv`), each input buffer is processed in a forked child,
    so that a crash in MLIR's native code is reported (`native_guard`); given `argv` from
    Python, in this process."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"] or args == ["-version"]:  # fast path: no bindings, no argparse
        from shlo.ir.versions import version_text

        sys.stdout.write(version_text())
        return 0
    from shlo.tools.reporting import run_reporting

    return run_reporting(PROG, lambda: _run(args, isolate=argv is None))


def _split_pass_flags(argv: list[str]) -> tuple[list[str], list[str]]:
    """Pass flags (`--NAME[=options]`, any flag shlo-opt does not define) apart from the rest:
    argparse would take an unknown flag whose options hold a space for the input file."""
    ours: list[str] = []
    passes: list[str] = []
    for arg in argv:
        is_pass = arg.startswith("--") and arg.partition("=")[0] not in _OPTIONS
        (passes if is_pass else ours).append(arg)
    return ours, passes


def _run(argv: list[str], isolate: bool) -> int:
    parser = build_parser()
    argv = normalize_argv(argv)
    ours, passes = _split_pass_flags(argv)
    args, extras = parser.parse_known_args(ours)
    extras += passes
    if args.version:
        from shlo.ir.versions import version_text

        sys.stdout.write(version_text())
        return 0
    if args.list_passes:
        from shlo.pipeline.registry import all_passes, format_pass_list

        sys.stdout.write(format_pass_list(all_passes()))
        return 0
    from shlo.ir.check_dialect import has_check_ops
    from shlo.ir.source import read_source, split_source
    from shlo.tools.opt_pipeline import OptPipeline

    source = None
    if args.run_reproducer:  # the pipeline is in the input
        from shlo.pipeline.repro import read_reproducer

        source = read_source(args.input)
        if source.is_bytecode:
            raise UsageError("--run-reproducer needs a text reproducer; this is MLIR bytecode")
        args.pass_pipeline, no_threads = read_reproducer(source.text, source.name)
        args.mlir_disable_threading |= no_threads
    driver = OptPipeline.from_args(args, extras, PROG)
    source = source or read_source(args.input)
    if source.is_bytecode:
        from shlo.ir.bytecode_guard import check_bytecode

        check_bytecode(source.data, source.name)
    if not source.is_bytecode and has_check_ops(source.text):
        driver.accept_check_ops()
    if args.split_input_file and source.is_bytecode:
        raise UsageError("--split-input-file needs text input; this is MLIR bytecode")
    chunks = split_source(source, args.input_split_marker) if args.split_input_file else [source]
    if args.emit_bytecode and len(chunks) > 1:
        raise UsageError("--emit-bytecode cannot be combined with --split-input-file")
    return _emit(driver, source, chunks, args, argv, isolate)


def _emit(
    driver: OptPipeline,
    source: Source,
    chunks: list[Source],
    args: argparse.Namespace,
    argv: list[str],
    isolate: bool,
) -> int:
    import os

    from shlo.ir.output import AtomicOutput
    from shlo.tools.native_guard import run_guarded

    separator = (args.output_split_marker + "\n").encode()
    with AtomicOutput(args.output) as out:

        def step(index: int) -> bool:
            try:
                out.stream.write(separator if index else b"")
                out.stream.flush()  # a chunk that crashes still has its place in the output
                done = driver.process(chunks[index], source, out.stream)
                out.stream.flush()  # the child leaves by os._exit, which flushes nothing
            except OSError as error:  # a full disk, named with the output's path
                raise out.named(error) from None
            return done

        status = run_guarded(
            PROG, chunks, step, argv, args.input, split=len(chunks) > 1, isolate=isolate
        )
        if status == 0 or (status == 1 and not out.atomic):
            out.commit()
    if status == 1 and out.atomic and os.path.exists(args.output):
        print(f"{PROG}: {args.output} left as it was", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
