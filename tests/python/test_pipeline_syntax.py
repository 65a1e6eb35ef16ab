from __future__ import annotations

import pytest

from shlo.errors import PipelineError
from shlo.ir.text import split_top_level
from shlo.pipeline.syntax import Element, flag_to_element, parse_pipeline


def test_split_respects_braces_parens_and_quotes() -> None:
    text = "a{x='1,2' y={p,q}}, func.func(b, c), d"
    assert split_top_level(text) == ["a{x='1,2' y={p,q}}", "func.func(b, c)", "d"]


def test_parse_pipeline_round_trips() -> None:
    anchored = parse_pipeline("builtin.module(inline, func.func(canonicalize{max-iterations=3}))")
    assert anchored.name == "builtin.module"
    nested = [str(e) for e in anchored.nested]
    assert nested == ["inline", "func.func(canonicalize{max-iterations=3})"]
    assert anchored.pass_names() == ["inline", "canonicalize"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("canonicalize", "must be one anchored pipeline"),
        ("builtin.module(cse", "unterminated ')'"),
        ("builtin.module(cse{a=1)", "expected '}' before ')'"),
        ("builtin.module(cse) junk", "unexpected"),
    ],
)
def test_malformed_pipelines_say_why(text: str, message: str) -> None:
    with pytest.raises(PipelineError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pipeline(text)


@pytest.mark.parametrize(
    ("flag", "element"),
    [
        ("--canonicalize", Element("canonicalize")),
        (
            "--canonicalize=max-iterations=3 top-down=false",
            Element("canonicalize", "max-iterations=3 top-down=false"),
        ),
        (
            "--stablehlo-legalize-composite-to-call=except=a,b",
            Element("stablehlo-legalize-composite-to-call", "except=a,b"),
        ),
    ],
)
def test_pass_flags_become_elements(flag: str, element: Element) -> None:
    assert flag_to_element(flag) == element
