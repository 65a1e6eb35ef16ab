"""Passes written in Python: registration, typed options, and the adapter the PassManager runs.

A pass is a function of (module operation, options) registered under a kebab-case name; its
options are a dataclass whose fields are spelled `name{field-name=value other=value}` in a
pipeline, as MLIR spells pass options.  Registration rejects duplicate names, and a pass may take
the name of a native tool's pass only by saying that it replaces that tool's pass (`replaces`).
"""

from __future__ import annotations

import dataclasses
import traceback
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from shlo.errors import PipelineError, ShloError
from shlo.ir.diagnostics import Diagnostic
from shlo.ir.text import split_top_level
from shlo.pipeline.native_tools import NATIVE_TOOLS

_TRUE, _FALSE = {"true", "1", "on"}, {"false", "0", "off"}


# Warnings Python passes report (the bindings can emit only errors), until the runner of the
# pass manager takes them into its diagnostics.
_WARNINGS: list[Diagnostic] = []


def warn(location: Any, message: str) -> None:
    """Report a warning at `location` and go on, as a C++ pass's `emitWarning`."""
    _WARNINGS.append(Diagnostic.at(location, "warning", message))


def take_warnings() -> list[Diagnostic]:
    """The warnings reported since the last call."""
    taken = _WARNINGS[:]
    _WARNINGS.clear()
    return taken


class PassFailure(ShloError):
    """Raised by a Python pass to fail the pipeline with a message (and an op to point at)."""

    def __init__(self, message: str, operation: Any = None) -> None:
        super().__init__(message)
        self.operation = operation


@dataclass(frozen=True)
class PythonPass:
    """A registered Python pass: its name, what it is for, its run function and options type.

    A pass made with `register_pipeline` has `expands_to` instead: it stands for a pipeline of
    other passes (any world's), as MLIR's registered pass pipelines do.  A pass that `checks`
    fails as its answer (the input lacks what it checks for), so its failure leaves no
    reproducer behind.  A pass whose `anchor` is `func.func` (an upstream pass anchored on
    functions) runs on each top-level function itself, so a pipeline may nest it as MLIR's
    pipelines nest such passes: `func.func(name)`.  A pass that `replaces` a native tool
    ('torch-mlir-opt' or 'iree-opt') stands in for that tool's pass of the same name: the
    registry lists this one and pipelines run it (a port in process instead of a subprocess).
    """

    name: str
    description: str
    run: Callable[[Any, Any], None]
    options_type: type | None = None
    expands_to: Callable[[Any], str] | None = None
    checks: bool = False
    anchor: str | None = None
    replaces: str | None = None

    def option_help(self) -> list[tuple[str, str, str]]:
        """(option name, type name, description) for each option, for --list-passes."""
        if self.options_type is None:
            return []
        hints = typing.get_type_hints(self.options_type)
        return [
            (
                _spelling(f),
                getattr(hints[f.name], "__name__", str(hints[f.name])),
                f.metadata.get("help", ""),
            )
            for f in dataclasses.fields(self.options_type)
        ]

    def parse_options(self, text: str) -> Any:
        """Options from MLIR's `key=value key2=value2` syntax; defaults fill the rest."""
        if self.options_type is None:
            if text.strip():
                raise PipelineError(f"pass '{self.name}' takes no options, got '{text}'")
            return None
        hints = typing.get_type_hints(self.options_type)
        fields = {_spelling(f): f.name for f in dataclasses.fields(self.options_type)}
        values: dict[str, Any] = {}
        for item in split_top_level(text, " "):
            key, has_value, raw = item.partition("=")
            if key not in fields:
                known = ", ".join(sorted(fields)) or "none"
                raise PipelineError(f"pass '{self.name}' has no option '{key}' (options: {known})")
            field = fields[key]
            values[field] = _convert(hints[field], raw.strip("'\"") if has_value else "true", key)
        return self.options_type(**values)

    def adapter(self, options: Any) -> Callable[[Any, Any], None]:
        """The callable `PassManager.add` runs: failures become MLIR errors, never tracebacks."""

        def run(operation: Any, pass_: Any) -> None:
            try:
                self.run(operation, options)
            except PassFailure as failure:
                target = failure.operation if failure.operation is not None else operation
                target.location.emit_error(f"{self.name}: {failure}")
                pass_.signal_pass_failure()
            except Exception as error:  # a bug in the pass must not take the session down
                operation.location.emit_error(f"{self.name}: {_describe(error)}")
                pass_.signal_pass_failure()

        return run


def _describe(error: Exception) -> str:
    """`Type: message (at file:line)`, unwrapping the bindings' 'Exception raised in callback'."""
    where = traceback.extract_tb(error.__traceback__)[-1]
    text = f"{type(error).__name__}: {error}"
    if "Traceback" in text:  # an exception from a nested callback, flattened into text
        text = [line for line in text.splitlines() if line.strip()][-1]
    return f"{text} (at {where.filename}:{where.lineno})"


def _spelling(option: dataclasses.Field[Any]) -> str:
    """The option's name on the command line: `metadata["flag"]` where a pass must match
    upstream's spelling (`useDebugInfo`), else the field's name in kebab case."""
    return cast(str, option.metadata.get("flag", option.name.replace("_", "-")))


def _convert(kind: Any, raw: str, key: str) -> Any:
    try:
        if kind is bool:
            if raw.lower() not in _TRUE | _FALSE:
                raise ValueError(raw)
            return raw.lower() in _TRUE
        if typing.get_origin(kind) is tuple:
            return tuple(part.strip() for part in raw.split(",") if part.strip())
        return kind(raw)
    except ValueError:
        name = getattr(kind, "__name__", str(kind))
        raise PipelineError(f"option '{key}': '{raw}' is not a valid {name}") from None


# Every registered Python pass by name; `shlo.pipeline.python_registry` fills it lazily.
REGISTRY: dict[str, PythonPass] = {}


def _register(
    name: str,
    fn: Callable[..., Any],
    options: type | None,
    description: str | None,
    pipeline: bool,
    checks: bool = False,
    anchor: str | None = None,
    replaces: str | None = None,
) -> PythonPass:
    if name in REGISTRY:
        raise ValueError(f"a Python pass named '{name}' is already registered")
    if replaces is not None and replaces not in NATIVE_TOOLS:
        # The bindings' passes run in process already and are planned before Python plugins.
        raise ValueError(
            f"Python pass '{name}' can replace a pass of {' or '.join(NATIVE_TOOLS)}, "
            f"not of '{replaces}'"
        )
    summary = description or (fn.__doc__ or "").strip().split("\n")[0]
    registered = PythonPass(
        name,
        summary,
        _expanded_only if pipeline else fn,
        options,
        fn if pipeline else None,
        checks,
        anchor,
        replaces,
    )
    REGISTRY[name] = registered
    return registered


def _expanded_only(operation: Any, options: Any) -> None:
    raise PassFailure("a pass pipeline runs as the passes it expands to, not as a pass")


def register_pass(
    name: str,
    *,
    options: type | None = None,
    description: str | None = None,
    checks: bool = False,
    anchor: str | None = None,
    replaces: str | None = None,
) -> Callable[[Callable[[Any, Any], None]], PythonPass]:
    """Decorator: register `fn(module_op, options)` as the Python pass `name` (`replaces`: the
    native tool whose pass of that name this one stands in for)."""
    return lambda fn: _register(
        name,
        fn,
        options,
        description,
        pipeline=False,
        checks=checks,
        anchor=anchor,
        replaces=replaces,
    )


def register_pipeline(
    name: str, *, options: type | None = None, description: str | None = None
) -> Callable[[Callable[[Any], str]], PythonPass]:
    """Decorator: register `fn(options) -> "pass-a, func.func(pass-b)"` as the pipeline `name`."""
    return lambda fn: _register(name, fn, options, description, pipeline=True)
