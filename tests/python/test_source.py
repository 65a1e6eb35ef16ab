"""Splitting and implicit-module wrapping keep every line and column where the user wrote it."""

from __future__ import annotations

import pytest

from shlo.ir.source import Source, split_source, wrap_in_module


def test_split_keeps_first_line_numbers() -> None:
    text = "a\n// -----\nb\nc\n// ----- trailing words\nd\n"
    chunks = split_source(Source("f.mlir", text.encode()), "// -----")
    assert [c.first_line for c in chunks] == [1, 2, 5]
    assert [c.padded_text().splitlines()[c.first_line - 1 :] for c in chunks][1] == ["", "b", "c"]


def test_split_at_a_marker_anywhere_on_a_line_as_mlir_does() -> None:
    """MLIR splits the buffer on the marker's text, so a commented-out marker splits too."""
    text = "a\n// // -----\nb\n"
    chunks = split_source(Source("f.mlir", text.encode()), "// -----")
    assert [c.first_line for c in chunks] == [1, 2]
    assert [c.text.strip() for c in chunks] == ["a\n//", "b"]


@pytest.mark.parametrize(
    "text",
    [
        "// comment\nfunc.func @f() {\n  return\n}\n",
        "\nfunc.func @f() {\n  return\n}\nfunc.func @g() {\n  return\n}\n",
        "#map = affine_map<(d0) -> (d0)>\nfunc.func @f() attributes {m = #map} {\n  return\n}\n",
        "// c\nfunc.func @f() {\n  return\n}\n{-#\n  dialect_resources: {}\n#-}\n",
        '// c\nfunc.func @f() {\n  return\n} // trailing comment\n#loc = loc("x":1:1)\n',
    ],
)
def test_wrap_keeps_every_original_line_in_place(text: str) -> None:
    wrapped = wrap_in_module(text)
    assert wrapped is not None
    original, result = text.splitlines(), wrapped.splitlines()
    assert len(result) == len(original)
    for before, after in zip(original, result, strict=True):
        if "func.func" in before or "return" in before:
            assert after.startswith(before.split("//")[0].rstrip())
    assert wrapped.count("module {") == 1


def test_wrap_with_alias_on_the_line_before() -> None:
    text = "#map = affine_map<(d0) -> (d0)>\nfunc.func @f() {\n  return\n}\n"
    assert wrap_in_module(text).splitlines()[0].endswith(" module {")


def test_wrap_needs_a_line_above_the_first_op() -> None:
    assert wrap_in_module("func.func @f() {\n  return\n}\n") is None


def test_wrap_of_comments_only_is_an_empty_module() -> None:
    wrapped = wrap_in_module("// nothing here\n", 'a "b".mlir')
    assert wrapped.strip().endswith('module {} loc("a \\"b\\".mlir":0:0)')


def test_the_wrapper_module_has_mlirs_implicit_module_location() -> None:
    wrapped = wrap_in_module("// c\nfunc.func @f() {\n  return\n}\n", "x.mlir")
    assert wrapped.splitlines()[3] == '} } loc("x.mlir":0:0)'


def test_bytecode_is_detected_by_content() -> None:
    assert Source("x.mlir", b"ML\xefR\x00rest").is_bytecode
    assert not Source("x.mlirbc", b"module {}").is_bytecode
