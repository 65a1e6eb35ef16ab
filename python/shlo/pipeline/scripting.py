"""Pipelines written in Python that read like MLIR's textual form.

    pipeline = Pipeline().inline().canonicalize(max_iterations=3).nest("func.func",
                                                                       lambda p: p.cse())
    str(pipeline)  # 'builtin.module(inline, canonicalize{max-iterations=3}, func.func(cse))'
    result = pipeline.run(module, print_ir_after_all=True, timing=True)
    result.module, result.log

Any pass of any world, Python passes and pipelines included, is a method (dashes spelled as
underscores) or `add("pass-name", option=value)`; `Pipeline.parse(text)` reads the textual form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from shlo.ir.diagnostics import capture_native_stderr
from shlo.ir.module import IRModule
from shlo.pipeline.run import run_pipeline
from shlo.pipeline.segments import RunOptions
from shlo.pipeline.syntax import Element, parse_pipeline


def format_option(value: object) -> str:
    """A Python value as MLIR option text: booleans lower-case, sequences comma-joined."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value))
    text = str(value)
    return f"'{text}'" if any(ch in text for ch in " {}") else text


@dataclass(frozen=True)
class RunResult:
    """The transformed module and what MLIR's instrumentation printed (IR dumps, timing)."""

    module: IRModule
    log: str


@dataclass(frozen=True)
class Pipeline:
    """An immutable pass pipeline: every builder call returns a new, longer one."""

    anchor: str = "builtin.module"
    elements: tuple[Element, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Pipeline:
        anchored = parse_pipeline(text)
        return cls(anchored.name, tuple(anchored.nested or ()))

    def add(self, name: str, **options: object) -> Pipeline:
        text = " ".join(
            f"{key.rstrip('_').replace('_', '-')}={format_option(value)}"
            for key, value in options.items()
        )  # except_=... spells except=
        return replace(self, elements=(*self.elements, Element(name, text)))

    def nest(self, anchor: str, inner: Pipeline | Callable[[Pipeline], Pipeline]) -> Pipeline:
        """Run `inner` on every `anchor` op (e.g. each `func.func`)."""
        nested = inner(Pipeline(anchor)) if callable(inner) else inner
        return replace(self, elements=(*self.elements, Element(anchor, nested=nested.elements)))

    def __getattr__(self, attribute: str) -> Callable[..., Pipeline]:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        return lambda **options: self.add(attribute.replace("_", "-"), **options)

    def __str__(self) -> str:
        return str(Element(self.anchor, nested=self.elements))

    def run(
        self,
        module: IRModule,
        *,
        print_ir_before_all: bool = False,
        print_ir_after_all: bool = False,
        print_ir_after_change: bool = False,
        timing: bool = False,
        statistics: bool = False,
        threading: bool = True,
    ) -> RunResult:
        """Run on `module`; instrumentation output is captured into the result's `log`."""
        options = RunOptions(
            print_before_all=print_ir_before_all,
            print_after_all=print_ir_after_all or print_ir_after_change,
            print_after_change=print_ir_after_change,
            timing=timing,
            statistics=statistics,
        )
        with capture_native_stderr() as printed:
            result = run_pipeline(module, str(self), threading=threading, options=options)
        return RunResult(result, printed[0])
