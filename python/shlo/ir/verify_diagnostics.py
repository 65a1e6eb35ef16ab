"""`--verify-diagnostics`: MLIR's expected-diagnostic checker, which the bindings do not expose.

Follows `SourceMgrDiagnosticVerifierHandler` (mlir/lib/IR/Diagnostics.cpp): comments of the form
`expected-(error|warning|note|remark)[-re][@+N|@-N|@above|@below|@unknown] {{text}}` are
matched against the diagnostics a buffer produced, and every mismatch is reported with the
same wording the C++ verifier uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shlo.ir.diagnostics import Diagnostic
from shlo.ir.source import Source

# The note MLIR adds to op diagnostics unless printOpOnDiagnostic is off, which mlir-opt turns
# off under --verify-diagnostics; the bindings cannot, so the verifier ignores it.
_PRINTED_OP_NOTE = "see current operation:"
_EXPECTED = re.compile(
    r"expected-(error|note|remark|warning)(-re)?"
    r" *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)


@dataclass
class Expected:
    """One `expected-*` comment: what it wants, where, and whether it was seen."""

    kind: str
    line: int  # 0 for @unknown
    text: str
    pattern: re.Pattern[str]
    comment_line: int
    comment_column: int
    matched: bool = False

    def matches(self, message: str) -> bool:
        return bool(self.pattern.search(message))


def _pattern(text: str, is_regex: bool) -> re.Pattern[str]:
    """A literal substring, or for `-re` literal text with `{{regex}}` parts."""
    if not is_regex:
        return re.compile(re.escape(text))
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return re.compile("".join(part if i % 2 else re.escape(part) for i, part in enumerate(parts)))


def parse_expected(source: Source, problems: list[Diagnostic] | None = None) -> list[Expected]:
    """Every expected-* comment of the buffer, its target line resolved as MLIR resolves it;
    a `-re` comment whose regex does not compile goes to `problems` instead, as MLIR's
    verifier reports it ("invalid regex: ...").

    Bytecode has no comments, so every diagnostic of a bytecode buffer is unexpected."""
    expected: list[Expected] = []
    if source.is_bytecode:
        return expected
    for_next_line: list[Expected] = []
    last_plain_line = 0
    for number, line in enumerate(source.text.splitlines(), start=source.first_line):
        match = _EXPECTED.search(line.rstrip())
        if not match:
            for item in for_next_line:
                item.line = number
            for_next_line.clear()
            last_plain_line = number
            continue
        kind, is_regex, _, designator, text = match.groups()
        try:
            pattern = _pattern(text, bool(is_regex))
        except re.error as error:
            where = (source.name, number, match.start() + 1)
            (problems if problems is not None else []).append(
                Diagnostic("error", f"invalid regex: {error}", *where)
            )
            continue
        item = Expected(kind, number, text, pattern, number, match.start() + 1)
        if designator in ("above", "below", "unknown"):
            item.line = {"above": last_plain_line, "unknown": 0}.get(designator, number)
            if designator == "below":
                for_next_line.append(item)
        elif designator:
            item.line = number + int(designator)
        expected.append(item)
    return expected


# `--verify-diagnostics[=LEVEL]`: MLIR's enum option; the bare flag and `=` mean `all`.
DIAGNOSTIC_LEVELS = {"": "all", "all": "all", "only-expected": "only-expected"}


def verify(
    source: Source, diagnostics: list[Diagnostic], only_expected: bool = False
) -> list[Diagnostic]:
    """The errors `--verify-diagnostics` reports for this buffer; empty when all is as expected.
    `only_expected` (`--verify-diagnostics=only-expected`): a diagnostic no comment expects is
    no error, and neither is one of another severity; every expected one must still appear."""
    problems: list[Diagnostic] = []
    expected = parse_expected(source, problems)
    for diag in (d for top in diagnostics for d in top.flattened()):
        if diag.severity == "note" and diag.message.startswith(_PRINTED_OP_NOTE):
            continue
        problem = _match(diag, source.name, expected)
        if problem and not only_expected:
            problems.append(problem)
    for item in expected:
        if not item.matched:
            problems.append(
                Diagnostic(
                    "error",
                    f'expected {item.kind} "{item.text}" was not produced',
                    source.name,
                    item.comment_line,
                    item.comment_column,
                )
            )
    return problems


def _match(diag: Diagnostic, name: str, expected: list[Expected]) -> Diagnostic | None:
    line = diag.line if diag.file == name else 0
    if diag.file not in (name, None):
        return Diagnostic(
            "error",
            f"unexpected {diag.severity}: {diag.message}",
            diag.file,
            diag.line,
            diag.column,
        )
    candidates = [e for e in expected if e.line == line and e.matches(diag.message)]
    for item in candidates:
        if item.kind == diag.severity:  # one comment may match several diagnostics, as in C++
            item.matched = True
            return None
    if candidates:
        near = candidates[0]
        return Diagnostic(
            "error",
            f"'{diag.severity}' diagnostic emitted when expecting a '{near.kind}'",
            name,
            near.comment_line,
            near.comment_column,
        )
    return Diagnostic(
        "error", f"unexpected {diag.severity}: {diag.message}", diag.file, diag.line, diag.column
    )
