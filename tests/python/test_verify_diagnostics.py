"""The expected-* checker on plain diagnostics, against MLIR's rules."""

from __future__ import annotations

from shlo.ir.diagnostics import Diagnostic, parse_printed
from shlo.ir.source import Source
from shlo.ir.verify_diagnostics import parse_expected, verify

TEXT = """func.func @f() {
  // expected-error@+1 {{first}}
  op1
  op2
  // expected-warning@-1 {{second}}
  // expected-remark@below {{third}}
  // expected-note@below {{fourth}}
  op3
  // expected-error-re@above {{fif{{t+}}h}}
  // expected-error@unknown {{nowhere}}
}
"""


def test_designators_resolve_like_mlir() -> None:
    lines = {e.text: e.line for e in parse_expected(Source("t.mlir", TEXT.encode()))}
    assert lines == {
        "first": 3,
        "second": 4,
        "third": 8,
        "fourth": 8,
        "fif{{t+}}h": 8,
        "nowhere": 0,
    }


def test_all_expected_seen_is_clean() -> None:
    diags = [
        Diagnostic("error", "the first one", "t.mlir", 3, 1),
        Diagnostic("warning", "second", "t.mlir", 4, 1),
        Diagnostic(
            "remark", "third", "t.mlir", 8, 1, notes=(Diagnostic("note", "fourth", "t.mlir", 8, 2),)
        ),
        Diagnostic("error", "fifttth", "t.mlir", 8, 1),
        Diagnostic("error", "nowhere at all"),
    ]
    assert verify(Source("t.mlir", TEXT.encode()), diags) == []


def test_mismatches_use_the_cpp_wording() -> None:
    diags = [
        Diagnostic("warning", "first", "t.mlir", 3, 5),
        Diagnostic("error", "surprise", "t.mlir", 4, 7),
    ]
    messages = [(d.line, d.message) for d in verify(Source("t.mlir", TEXT.encode()), diags)]
    assert messages[0] == (2, "'warning' diagnostic emitted when expecting a 'error'")
    assert messages[1] == (4, "unexpected error: surprise")
    assert (2, 'expected error "first" was not produced') in messages
    assert (9, 'expected error "fif{{t+}}h" was not produced') in messages


def test_printed_op_notes_are_ignored() -> None:
    diags = [
        Diagnostic(
            "error",
            "first",
            "t.mlir",
            2,
            1,
            notes=(Diagnostic("note", "see current operation: op1", "t.mlir", 2, 1),),
        )
    ]
    problems = verify(Source("t.mlir", b"// expected-error@+1 {{first}}\n\n\n"), diags)
    assert problems == []


def test_native_stderr_is_read_back() -> None:
    printed = (
        "/a.mlir:3:4: error: boom\n  source line\n   ^\n/a.mlir:1:1: note: here\n"
        "<unknown>:0: warning: somewhere\n// -----// IR Dump //----- //\n"
    )
    diags = parse_printed(printed)
    assert [(d.severity, d.line, d.message) for d in diags] == [
        ("error", 3, "boom"),
        ("warning", 0, "somewhere"),
    ]
    assert diags[0].notes[0].message == "here"


def test_a_regex_that_does_not_compile_is_reported_at_its_comment() -> None:
    text = "// expected-error-re @+1 {{a{{[unclosed}}b}}\nop\n"
    problems = verify(Source("t.mlir", text.encode()), [])
    assert [(p.line, p.column, p.message.split(":")[0]) for p in problems] == [
        (1, 4, "invalid regex")
    ]
