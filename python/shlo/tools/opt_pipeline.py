"""What shlo-opt does with one buffer: parse, run the planned pipeline, report, print.

Kept apart from the argument parsing in `opt_main` so the same steps serve `--split-input-file`
chunks, whole files and tests alike.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from shlo.errors import ShloError, UnknownPass, UsageError
from shlo.ir.check_dialect import has_check_ops, to_generic
from shlo.ir.diagnostics import Diagnostic, format_all
from shlo.ir.module import UNNAMED, IRModule, PrintOptions, diagnosed, parse_source
from shlo.ir.output import native_folder
from shlo.ir.source import Source
from shlo.ir.worlds import WORLD_NAMES, ContextPolicy, World, get_world
from shlo.pipeline.planner import plan
from shlo.pipeline.python_registry import python_pass
from shlo.pipeline.segments import Contexts, PipelineFailed, RunOptions, Segment, run_segments
from shlo.pipeline.syntax import Element, flag_to_element, parse_pipeline

_NOT_ONE_OP = "source must contain a single top-level operation"  # parse_source's first try
_NOT_TEXT = "MLIR reported an error while parsing, and its message is not text"
_REPRODUCER_RESOURCE = "ignoring unknown external resources for 'mlir_reproducer'"


def print_options(args: argparse.Namespace, **extra: Any) -> PrintOptions:
    """MLIR's printing flags (`registerAsmPrinterCLOptions`), which shlo-opt and
    shlo-translate both take, as the options IR is printed with; `extra` adds the rest."""
    return PrintOptions(
        generic=args.mlir_print_op_generic,
        debug_info=args.mlir_print_debuginfo,  # pretty alone prints none, as in MLIR
        pretty_debug_info=args.mlir_pretty_debuginfo,
        local_scope=args.mlir_print_local_scope,
        name_loc_prefix=args.mlir_use_nameloc_as_prefix,
        skip_regions=args.mlir_print_skip_regions,
        elide_elements_above=args.mlir_elide_elementsattrs_if_larger,
        elide_resources_above=args.mlir_elide_resource_strings_if_larger,
        **extra,
    )


@dataclass
class OptPipeline:
    """A planned pipeline and the flags that say how to parse, run and print."""

    prog: str
    policy: ContextPolicy
    segments: list[Segment]
    run_options: RunOptions
    verify_diagnostics: bool
    only_expected: bool  # --verify-diagnostics=only-expected: unexpected diagnostics pass
    crash_reproducer: str | None = None  # where a failure's reproducer goes (else the cache's)
    reproducer: bool = True  # write one when a pass fails (never for a pass that only checks)
    unused_contexts: Contexts | None = None  # the planner's, still fresh: the first buffer's

    @classmethod
    def from_args(cls, args: argparse.Namespace, extras: list[str], prog: str) -> OptPipeline:
        if args.mlir_print_ir_module_scope and not args.mlir_disable_threading:
            # MLIR aborts the process in this case (report_fatal_error); say it instead.
            raise UsageError("--mlir-print-ir-module-scope requires --mlir-disable-threading")
        policy = ContextPolicy(
            allow_unregistered_dialects=args.allow_unregistered_dialect,
            threading=not args.mlir_disable_threading,
        )
        printing = print_options(
            args, bytecode=args.emit_bytecode, bytecode_version=args.emit_bytecode_version
        )
        run_options = RunOptions(
            print_before_all=args.mlir_print_ir_before_all,
            print_after_all=args.mlir_print_ir_after_all,
            print_after_change=args.mlir_print_ir_after_change,
            print_after_failure=args.mlir_print_ir_after_failure,
            print_module_scope=args.mlir_print_ir_module_scope,
            timing=args.mlir_timing,
            statistics=args.mlir_pass_statistics,
            printing=printing,
            print_before=_pass_list(args.mlir_print_ir_before),
            print_after=_pass_list(args.mlir_print_ir_after),
            tree_dir=native_folder(args.mlir_print_ir_tree_dir)
            if args.mlir_print_ir_tree_dir
            else None,
            verify_each=args.verify_each,
        )
        contexts = Contexts(policy)
        try:
            segments = _plan_from_args(args.pass_pipeline, extras, contexts, prog)
        except ShloError:
            contexts.close()
            raise
        if args.dump_pass_pipeline:
            sys.stderr.write(
                "".join(f"[{s.runs_in}] {_spelled_out(s, contexts)}\n" for s in segments)
            )
        return cls(
            prog,
            policy,
            segments,
            run_options,
            args.verify_diagnostics,
            args.verify_diagnostics_level == "only-expected",
            args.mlir_pass_pipeline_crash_reproducer,
            not args.no_reproducer,
            contexts,
        )

    def accept_check_ops(self) -> None:
        """Take the `check` dialect's ops, which no binding registers, as unregistered ops, as
        stablehlo-opt (which registers that dialect) takes them."""
        if not self.policy.allow_unregistered_dialects:
            self.policy = replace(self.policy, allow_unregistered_dialects=True)
            if self.unused_contexts is not None:
                self.unused_contexts.close()
                self.unused_contexts = None

    def process(self, chunk: Source, whole: Source, output: BinaryIO) -> bool:
        """Parse and transform one buffer, printing the result to `output` when it succeeds.

        Diagnostics go to stderr, or to the verifier under --verify-diagnostics.  Each buffer
        gets fresh contexts, as each mlir-opt split does.
        """
        contexts, self.unused_contexts = self.unused_contexts or Contexts(self.policy), None
        failure: PipelineFailed | None = None
        try:
            module, diagnostics = diagnosed(lambda: self._parse(chunk, contexts), chunk.is_bytecode)
            if module is not None:
                try:
                    module = run_segments(module, self.segments, contexts, self.run_options)
                    module.write(output, self.run_options.printing)
                except PipelineFailed as failed:
                    module, failure, diagnostics = None, failed, failed.diagnostics
            diagnostics = [
                d.renamed(UNNAMED, chunk.name)
                for d in contexts.sink.diagnostics + diagnostics
                if d.message != _REPRODUCER_RESOURCE  # shlo-opt reads that resource itself
            ]
        finally:
            contexts.close()
        if self.verify_diagnostics:
            from shlo.ir.verify_diagnostics import verify

            diagnostics = verify(chunk, diagnostics, self.only_expected)
        if diagnostics:
            sources = {} if whole.is_bytecode else {whole.name: whole.text}
            sys.stderr.write(format_all(diagnostics, sources))
        if failure is not None and not self.verify_diagnostics and self._wants_repro(failure):
            self._report_repro(chunk, failure)
        return (module is not None) if not self.verify_diagnostics else not diagnostics

    def _parse(self, chunk: Source, contexts: Contexts) -> IRModule:
        """Parse in the world the pipeline starts in; the other world's dialects parse too."""
        if not chunk.is_bytecode and has_check_ops(chunk.text):
            generic = to_generic(chunk.text, chunk.first_line)
            chunk = Source(chunk.name, generic.encode(), chunk.first_line)
        first = next((s.runs_in for s in self.segments if s.runs_in in WORLD_NAMES), "stablehlo")
        order = [first, *(name for name in WORLD_NAMES if name != first)]
        errors = []
        for name in order:
            world = get_world(name)
            try:
                return _parse_keeping_errors(world, contexts, chunk)
            except world.ir.MLIRError as error:
                errors.append(error)
                if "not found for custom op" not in str(error) and "Dialect `" not in str(error):
                    raise
        raise errors[0]

    def _wants_repro(self, failure: PipelineFailed) -> bool:
        """A reproducer unless turned off or every pass of the segment is a check, whose
        failure is its answer, not a fault to reproduce."""
        checks = [python_pass(element.name) for element in failure.segment.elements]
        return self.reproducer and not all(found is not None and found.checks for found in checks)

    def _report_repro(self, chunk: Source, failure: PipelineFailed) -> None:
        """Write a reproducer for the failing segment from the IR that entered it."""
        from shlo.pipeline.repro import write_repro

        before = chunk if failure.before is None else Source(chunk.name, failure.before)
        contexts = Contexts(self.policy)
        try:
            module = self._parse(before, contexts)
            flags = (
                ["--allow-unregistered-dialect"] if self.policy.allow_unregistered_dialects else []
            )
            flags += [] if self.policy.threading else ["--mlir-disable-threading"]
            path, command = write_repro(module, str(failure.segment), flags, self.crash_reproducer)
        finally:
            contexts.close()
        sys.stderr.write(
            f"{self.prog}: pipeline segment [{failure.segment.runs_in}] failed; "
            f"reproducer: {path}\n{self.prog}: rerun with: {command}\n"
        )


def _parse_keeping_errors(world: World, contexts: Contexts, chunk: Source) -> IRModule:
    """`parse_source`, but errors MLIR emits during a parse that still succeeds reach the sink.

    The bindings capture a parse's errors and drop them when the parse succeeds, yet some
    verifiers report and go on (VHLO's `dict_v1` with a non-VHLO key): mlir-opt prints such an
    error, and --verify-diagnostics expects it.  With `emit_error_diagnostics` the errors go to
    the context's handlers instead, but a failed parse's `MLIRError` then carries none, so a
    failure is parsed again the usual way.  If that parse succeeds, the first failed only on
    `parse_source`'s own first try (a chunk of several ops, parsed as one op, then wrapped in a
    module), and its errors but that one stand.  A chunk of one op is parsed twice (alone, then
    wrapped), so repeats are dropped.  (Hence a diagnostic repeated verbatim at one place is
    reported once.)
    """
    context = contexts.get(world)
    sink = contexts.sink.diagnostics
    mark = len(sink)
    emitted: list[Diagnostic] = []

    def keep(diag: object) -> bool:
        try:
            emitted.append(Diagnostic.from_binding(diag))
        except RuntimeError as error:  # a message that is not UTF-8
            if "str_from_cstr_and_size" not in str(error):
                raise
            emitted.append(Diagnostic("error", _NOT_TEXT, UNNAMED))
        return True

    handler = context.attach_diagnostic_handler(keep)  # runs before the sink's
    context.emit_error_diagnostics = True
    try:
        module = parse_source(world, context, chunk)
    except world.ir.MLIRError:
        module = None
    finally:
        context.emit_error_diagnostics = False
        handler.detach()
    if module is None:
        module = parse_source(world, context, chunk)  # raises the failure with its diagnostics
        emitted = [d for d in emitted if _NOT_ONE_OP not in d.message]
    seen = sink[mark:]  # what the second parse of a failure reported itself (warnings)
    sink.extend(d for i, d in enumerate(emitted) if d not in emitted[:i] and d not in seen)
    return module


def _plan_from_args(
    pipeline: str | None, flags: list[str], contexts: Contexts, prog: str
) -> list[Segment]:
    stray = [flag for flag in flags if not flag.startswith("--")]
    if stray:
        raise UsageError(f"unexpected argument '{stray[0]}' (one input file at most)")
    if pipeline and flags:
        raise UsageError(
            f"'--pass-pipeline' cannot be used with individual pass flags ({', '.join(flags)})"
        )
    try:
        if pipeline:
            anchored = parse_pipeline(pipeline)
            return plan(anchored.name, list(anchored.nested or ()), contexts)
        elements: list[Element] = [flag_to_element(flag) for flag in flags]
        return plan("builtin.module", elements, contexts, implicit_nesting=True)
    except UnknownPass as error:
        listing = f" (see '{prog} --list-passes')"
        raise UsageError(error.describe(as_flag=not pipeline) + listing) from None


def _pass_list(values: list[str]) -> tuple[str, ...]:
    """LLVM's comma-separated list flag, given once or several times."""
    return tuple(name.strip() for value in values for name in value.split(",") if name.strip())


def _spelled_out(segment: Segment, contexts: Contexts) -> str:
    """The segment with every option value of its in-process passes, as MLIR prints a pass
    manager, so the text pastes back as --pass-pipeline."""
    if segment.runs_in not in WORLD_NAMES:
        return str(segment)
    world = get_world(segment.runs_in)
    elements = []
    for element in segment.elements:
        if element.nested is None and python_pass(element.name) is not None:
            elements.append(str(element))
            continue
        text = f"{segment.anchor}({element})"
        manager = world.passmanager.PassManager.parse(text, contexts.get(world))
        elements.append(str(manager)[len(segment.anchor) + 1 : -1])
    return f"{segment.anchor}({', '.join(elements)})"
