"""Run a planned pipeline: its segments in order, each where its passes live.

A segment runs in a binding world's PassManager (Python passes join StableHLO-world segments
through `PassManager.add(callable)`) or in a native tool; the module is handed across as
bytecode between segments.  `shlo.pipeline.planner` makes the segments.
"""

from __future__ import annotations

import re
import sys
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from shlo.errors import ShloError
from shlo.ir.diagnostics import (
    Diagnostic,
    DiagnosticSink,
    capture_native_stderr,
    parse_printed,
)
from shlo.ir.module import IRModule, PrintOptions, from_bytecode
from shlo.ir.worlds import WORLD_NAMES, ContextPolicy, World, get_world
from shlo.pipeline.python_pass import take_warnings
from shlo.pipeline.python_registry import python_pass
from shlo.pipeline.syntax import Element


class PipelineFailed(ShloError):
    """A segment failed on the IR; carries the diagnostics it produced."""

    def __init__(self, segment: Segment, diagnostics: list[Diagnostic]) -> None:
        super().__init__(f"pipeline segment {segment} failed")
        self.segment = segment
        self.diagnostics = diagnostics
        self.before: bytes | None = None  # bytecode of the IR entering a segment after the first


@dataclass(frozen=True)
class Segment:
    """Consecutive top-level elements that run in one place: a binding world or a native tool."""

    runs_in: str  # a world's name (`stablehlo`, `iree`) or a native tool's (`iree-opt`)
    anchor: str
    elements: tuple[Element, ...]
    from_flags: bool = False  # given as per-pass flags: native tools nest them implicitly

    def __str__(self) -> str:
        return f"{self.anchor}({', '.join(map(str, self.elements))})"

    def native_arguments(self) -> list[str]:
        """How a native tool takes this segment: the flags as given, or the pipeline text."""
        if self.from_flags:
            return [
                f"--{e.name}={e.options}" if e.options else f"--{e.name}" for e in self.elements
            ]
        return [f"--pass-pipeline={self}"]


@dataclass(frozen=True)
class RunOptions:
    """mlir-opt's pass-manager instrumentation flags."""

    print_before_all: bool = False
    print_after_all: bool = False
    print_after_change: bool = False
    print_after_failure: bool = False
    print_module_scope: bool = False
    timing: bool = False
    statistics: bool = False
    printing: PrintOptions = PrintOptions()
    print_before: tuple[str, ...] = ()  # pass arguments: print the IR before these passes
    print_after: tuple[str, ...] = ()
    tree_dir: str | None = None
    verify_each: bool = True

    def native_flags(self, policy: ContextPolicy) -> list[str]:
        flags = {
            "--mlir-print-ir-before-all": self.print_before_all,
            "--mlir-print-ir-after-all": self.print_after_all,
            "--mlir-print-ir-after-change": self.print_after_change,
            "--mlir-print-ir-after-failure": self.print_after_failure,
            "--mlir-print-ir-module-scope": self.print_module_scope,
            "--mlir-timing": self.timing,
            "--mlir-pass-statistics": self.statistics,
            "--mlir-print-debuginfo": self.printing.debug_info,
            "--mlir-print-op-generic": self.printing.generic,
            "--mlir-disable-threading": not policy.threading,
            "--allow-unregistered-dialect": policy.allow_unregistered_dialects,
        }
        valued = {
            "--mlir-print-ir-before": ",".join(self.print_before),
            "--mlir-print-ir-after": ",".join(self.print_after),
            "--mlir-print-ir-tree-dir": self.tree_dir,
            "--mlir-elide-resource-strings-if-larger": self.printing.elide_resources_above,
            "--verify-each": "false" if not self.verify_each else None,
        }
        return [flag for flag, wanted in flags.items() if wanted] + [
            f"{flag}={value}" for flag, value in valued.items() if value not in (None, "")
        ]

    @property
    def selective_printing(self) -> bool:
        """Printing around named passes only, which the bindings cannot select: everything
        is printed to stderr and the dumps of other passes are dropped (a tree directory gets
        them all)."""
        named = bool(self.print_before or self.print_after)
        return named and not (self.print_before_all or self.print_after_all or self.tree_dir)


@dataclass
class Contexts:
    """One context per world for a unit of work, created on first use, all reporting to `sink`."""

    policy: ContextPolicy
    sink: DiagnosticSink = field(default_factory=DiagnosticSink)
    _made: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    def get(self, world: World) -> Any:
        if world.name not in self._made:
            self.adopt(world, world.make_context(self.policy))
        return self._made[world.name][0]

    def adopt(self, world: World, context: Any) -> None:
        """Work in `context` for `world` from now on: a fresh one, or a module's own, where the
        module needs no handover as bytecode (which copies every weight twice)."""
        if world.name in self._made:
            self._made.pop(world.name)[1].detach()
        self._made[world.name] = (context, context.attach_diagnostic_handler(self.sink.handle))

    def close(self) -> None:
        for _, handler in self._made.values():
            handler.detach()
        self._made.clear()


def run_segments(
    module: IRModule, segments: list[Segment], contexts: Contexts, options: RunOptions
) -> IRModule:
    """Run every segment in order; raises `PipelineFailed` from the first that fails.

    The IR entering each segment after the first is kept as bytecode for a reproducer; the IR
    entering the first is the caller's input, which it can parse again at no cost to success.
    """
    for index, segment in enumerate(segments):
        before = module.to_bytecode() if index else None
        run = _run_in_world if segment.runs_in in WORLD_NAMES else _run_native
        try:
            module = run(module, segment, contexts, options)
        except PipelineFailed as failure:
            failure.before = before
            raise
    return module


def _run_in_world(
    module: IRModule, segment: Segment, contexts: Contexts, options: RunOptions
) -> IRModule:
    world = get_world(segment.runs_in)
    module = module.transfer(world, contexts.get(world))
    manager = world.passmanager.PassManager(segment.anchor, module.context)
    for element in segment.elements:
        # plugins named in the plan are loaded by now
        python = python_pass(element.name) if element.nested is None else None
        if python is not None:
            adapter = python.adapter(python.parse_options(element.options))
            manager.add(adapter, name=element.name, argument=element.name)
        else:
            manager.add(str(element))
    _instrument(manager, options)
    capture: AbstractContextManager[list[str]] = (
        capture_native_stderr() if options.selective_printing else nullcontext([])
    )
    # Errors go to the context's handlers (the sink), as mlir-opt prints them: the bindings'
    # capture would drop those of a pass that reports and goes on (a pattern's failed match).
    sink, mark = contexts.sink.diagnostics, len(contexts.sink.diagnostics)
    module.context.emit_error_diagnostics = True
    try:
        with capture as printed:
            manager.run(module.operation)
        sink.extend(take_warnings())
    except world.ir.MLIRError as error:
        sink.extend(take_warnings())
        # A failure without diagnostics prints nothing, as mlir-opt's does.
        emitted = sink[mark:] + [Diagnostic.from_binding(d) for d in error.error_diagnostics]
        del sink[mark:]
        raise PipelineFailed(segment, emitted) from None
    finally:
        module.context.emit_error_diagnostics = False
        if options.selective_printing:
            sys.stderr.write(selected_dumps("".join(printed), options))
        del manager  # the timing report prints when the pass manager goes away
    return module


# "IR Dump After CSEPass: cse //" (this MLIR) or "IR Dump After CSE (cse) //" (older ones)
_DUMP = re.compile(
    r"^// -----// IR Dump (Before|After) (?:[^:\n]*: ([\w.-]+)|.*?\(([\w.-]+)\))", re.MULTILINE
)


def selected_dumps(printed: str, options: RunOptions) -> str:
    """The IR dumps in `printed` that `--mlir-print-ir-before/after=PASS` ask for."""
    dumps = list(_DUMP.finditer(printed))
    if not dumps:
        return printed
    kept = [printed[: dumps[0].start()]]
    ends = [dump.start() for dump in dumps[1:]] + [len(printed)]
    for dump, end in zip(dumps, ends, strict=True):
        when, argument, older = dump.groups()
        argument = argument or older
        wanted = options.print_before if when == "Before" else options.print_after
        if argument in wanted:
            kept.append(printed[dump.start() : end])
    return "".join(kept)


def _instrument(manager: Any, options: RunOptions) -> None:
    """mlir-opt's semantics: after-failure alone prints failures; after-change needs after-all."""
    before = options.print_before_all or bool(options.print_before)
    after = options.print_after_all or bool(options.print_after)
    if any((before, after, options.print_after_failure)):
        manager.enable_ir_printing(
            print_before_all=before,
            print_after_all=after or options.print_after_failure,
            print_module_scope=options.print_module_scope,
            print_after_change=options.print_after_change,
            print_after_failure=options.print_after_failure,
            large_elements_limit=options.printing.elide_elements_above,
            large_resource_limit=options.printing.elide_resources_above,
            enable_debug_info=options.printing.debug_info,
            print_generic_op_form=options.printing.generic,
            tree_printing_dir_path=options.tree_dir,
        )
    if not options.verify_each:
        manager.enable_verifier(False)
    if options.timing:
        manager.enable_timing()
    if options.statistics:
        manager.enable_statistics()


def _run_native(
    module: IRModule, segment: Segment, contexts: Contexts, options: RunOptions
) -> IRModule:
    from shlo.pipeline import native_tools  # a subprocess runner, loaded when one runs

    result = native_tools.run_tool(
        segment.runs_in,
        module.to_bytecode(),
        segment.native_arguments() + options.native_flags(contexts.policy),
    )
    diagnostics = parse_printed(result.stderr)
    passthrough = [
        line for line in result.stderr.splitlines(keepends=True) if not parse_printed(line)
    ]
    sys.stderr.write("".join(passthrough))
    if result.returncode != 0:
        raise PipelineFailed(segment, diagnostics or [Diagnostic("error", result.stderr.strip())])
    contexts.sink.diagnostics.extend(diagnostics)
    return from_bytecode(module.world, module.context, result.output)
