"""MLIR diagnostics as plain records, collected from either world and printed like mlir-opt.

Errors reach Python inside `MLIRError`; warnings, remarks and notes reach a context's
diagnostic handler.  Both are turned into `Diagnostic` records here, so that printing and
`--verify-diagnostics` work on one kind of object whatever world or tool produced them.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
# How mlir-opt/iree-opt print a diagnostic; used to read a native tool's stderr back.
_PRINTED = re.compile(r"^(.+?):(\d+):(\d+): (error|warning|note|remark): (.*)$")
_PRINTED_UNKNOWN = re.compile(r"^<unknown>:0: (error|warning|note|remark): (.*)$")
_ESCAPED_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F)}


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic: severity, where (the first file:line:col of its location) and what."""

    severity: str
    message: str
    file: str | None = None
    line: int = 0
    column: int = 0
    notes: tuple[Diagnostic, ...] = ()

    @classmethod
    def at(
        cls, location: Any, severity: str, message: str, notes: tuple[Diagnostic, ...] = ()
    ) -> Diagnostic:
        """A diagnostic at the first file location of a bindings `Location`."""
        match = _FILE_LOC.search(str(location))
        if match is None:
            return cls(severity, message, None, 0, 0, notes=notes)
        line, column = int(match.group(2)), int(match.group(3))
        return cls(severity, message, match.group(1), line, column, notes=notes)

    @classmethod
    def from_binding(cls, diag: Any) -> Diagnostic:
        """From a bindings `Diagnostic` or `DiagnosticInfo` (both worlds have the same shape)."""
        notes = tuple(cls.from_binding(note) for note in diag.notes)
        try:
            message = diag.message
        except RuntimeError:  # it quotes bytes of a damaged file that are not UTF-8
            message = "(MLIR's message quotes bytes that are not UTF-8)"
        return cls.at(diag.location, diag.severity.name.lower(), message, notes)

    def renamed(self, old: str, new: str) -> Diagnostic:
        """The same diagnostic with locations in file `old` moved to file `new`."""
        notes = tuple(note.renamed(old, new) for note in self.notes)
        return replace(self, file=new if self.file == old else self.file, notes=notes)

    def on_one_line(self) -> Diagnostic:
        """The same diagnostic with the control characters of its message (and its notes')
        escaped: the bytecode reader's messages quote bytes of the file as they are, a producer
        string that runs on past its end among them."""
        notes = tuple(note.on_one_line() for note in self.notes)
        return replace(self, message=self.message.translate(_ESCAPED_CONTROLS), notes=notes)

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.file else "<unknown>:0"

    def flattened(self) -> Iterator[Diagnostic]:
        """This diagnostic, then its notes, as separate diagnostics (the order mlir-opt prints)."""
        yield self
        for note in self.notes:
            yield from note.flattened()


def location_text(location: Any) -> str:
    """`file:line:col` of a location (its first file location), as diagnostics print it."""
    match = _FILE_LOC.search(str(location))
    return f"{match.group(1)}:{match.group(2)}:{match.group(3)}" if match else "<unknown>:0"


def line_column(location: Any) -> tuple[int, int]:
    """Line and column of a location's first `:line:col`, (0, 0) when it has none."""
    match = re.search(r":(\d+):(\d+)", str(location))
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def from_mlir_error(error: Any) -> list[Diagnostic]:
    """The diagnostics an `MLIRError` carries, or its message when it carries none."""
    diags = [Diagnostic.from_binding(d) for d in getattr(error, "error_diagnostics", [])]
    return diags or [Diagnostic("error", str(error))]


def parse_printed(text: str) -> list[Diagnostic]:
    """Diagnostics from a native tool's stderr; lines that are not diagnostics are dropped."""
    diags: list[Diagnostic] = []
    for line in text.splitlines():
        if match := _PRINTED.match(line):
            file, row, col, severity, message = match.groups()
            diag = Diagnostic(severity, message, file, int(row), int(col))
        elif match := _PRINTED_UNKNOWN.match(line):
            diag = Diagnostic(match.group(1), match.group(2))
        else:
            continue
        if diag.severity == "note" and diags:
            diags[-1] = Diagnostic(**{**diags[-1].__dict__, "notes": (*diags[-1].notes, diag)})
        else:
            diags.append(diag)
    return diags


def format_diagnostic(diag: Diagnostic, sources: dict[str, str]) -> str:
    """`file:line:col: severity: message`, then the source line and a caret when it is known."""
    out = [f"{diag.where()}: {diag.severity}: {diag.message}"]
    lines = sources.get(diag.file or "")
    if lines is not None and diag.line > 0:
        source_lines = lines.splitlines()
        if diag.line <= len(source_lines):
            out += [source_lines[diag.line - 1], " " * max(diag.column - 1, 0) + "^"]
    return "\n".join(out)


def format_all(diags: Iterable[Diagnostic], sources: dict[str, str]) -> str:
    return "".join(format_diagnostic(d, sources) + "\n" for diag in diags for d in diag.flattened())


class DiagnosticSink:
    """Collects the diagnostics a context emits outside `MLIRError` (warnings, remarks, notes)."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []

    def handle(self, diag: Any) -> bool:
        self.diagnostics.append(Diagnostic.from_binding(diag))
        return True

    @contextmanager
    def attached(self, context: Any) -> Iterator[DiagnosticSink]:
        handler = context.attach_diagnostic_handler(self.handle)
        try:
            yield self
        finally:
            handler.detach()


@contextmanager
def capture_native_stderr() -> Iterator[list[str]]:
    """Capture what native code prints on fd 2 (LLVM's option parser reports errors there)."""
    sys.stderr.flush()
    saved = os.dup(2)
    printed: list[str] = []
    with tempfile.TemporaryFile() as scratch:
        os.dup2(scratch.fileno(), 2)
        try:
            yield printed
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            scratch.seek(0)
            printed.append(scratch.read().decode(errors="replace"))
