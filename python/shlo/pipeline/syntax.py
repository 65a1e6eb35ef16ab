"""MLIR's textual pass-pipeline syntax, split into top-level elements.

MLIR's own parser stays the judge of whether an element is valid; this module only finds the
element boundaries (`a{opt=1}, func.func(b, c)`) so a pipeline can be cut into segments that
run in different worlds or tools.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shlo.errors import PipelineError
from shlo.ir.text import BracketError, split_top_level

_NAME = re.compile(r"\s*([A-Za-z_][\w.$-]*)\s*")


@dataclass(frozen=True)
class Element:
    """One pipeline element: a pass with its options, or an op anchor with a nested pipeline."""

    name: str
    options: str = ""
    nested: tuple[Element, ...] | None = None

    def __str__(self) -> str:
        if self.nested is not None:
            return f"{self.name}({', '.join(map(str, self.nested))})"
        return f"{self.name}{{{self.options}}}" if self.options else self.name

    def pass_names(self) -> list[str]:
        if self.nested is None:
            return [self.name]
        return [name for element in self.nested for name in element.pass_names()]


def parse_element(text: str) -> Element:
    match = _NAME.match(text)
    if not match:
        raise PipelineError(f"expected a pass or operation name in '{text}'")
    name, rest = match.group(1), text[match.end() :].strip()
    if not rest:
        return Element(name)
    if rest.startswith("{") and rest.endswith("}"):
        return Element(name, options=rest[1:-1].strip())
    if rest.startswith("(") and rest.endswith(")"):
        return Element(name, nested=tuple(parse_elements(rest[1:-1])))
    raise PipelineError(f"unexpected '{rest}' after '{name}' in pipeline element '{text}'")


def parse_elements(text: str) -> list[Element]:
    try:
        pieces = split_top_level(text, what="pipeline", keep_empty=True)
    except BracketError as error:
        raise PipelineError(str(error)) from None
    if text.strip() and not all(pieces):
        raise PipelineError(f"empty pipeline element in '{text}'")
    return [parse_element(piece) for piece in pieces if piece]


def parse_pipeline(text: str) -> Element:
    """`builtin.module(a, b)` as an anchor element; the anchor is required, as in mlir-opt."""
    elements = parse_elements(text)
    if len(elements) != 1 or elements[0].nested is None:
        raise PipelineError(
            f"pipeline '{text}' must be one anchored pipeline, e.g. 'builtin.module({text})'"
        )
    return elements[0]


def flag_to_element(flag: str) -> Element:
    """`--name=opts` (a per-pass flag, as mlir-opt takes it) as the element `name{opts}`."""
    name, _, options = flag.lstrip("-").partition("=")
    return Element(name, options=options.strip())
