"""Python passes: typed options in MLIR's syntax, registration rules, failures as diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from shlo.pipeline.python_pass import OptionError, PythonPass, register_pass
from shlo.pipeline.python_registry import python_passes


@dataclass(frozen=True)
class _Options:
    limit: int = 3
    ratio: float = 0.5
    verbose: bool = False
    keep: tuple[str, ...] = field(default=())
    mode: str = "fast"


_PASS = PythonPass("test-pass", "for tests", lambda op, options: None, _Options)


def test_options_parse_with_types_and_defaults() -> None:
    options = _PASS.parse_options("limit=7 verbose keep='a,b' mode=\"slow mode\"")
    assert options == _Options(limit=7, ratio=0.5, verbose=True, keep=("a", "b"), mode="slow mode")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lmit=3", "has no option 'lmit'"),
        ("limit=three", "'three' is not a valid int"),
        ("verbose=maybe", "'maybe' is not a valid bool"),
    ],
)
def test_bad_options_are_named(text: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        _PASS.parse_options(text)


def test_options_on_a_pass_without_options() -> None:
    bare = PythonPass("bare", "", lambda op, options: None)
    with pytest.raises(OptionError, match="takes no options"):
        bare.parse_options("x=1")


def test_duplicate_names_are_rejected() -> None:
    assert "shlo-op-stats" in python_passes()
    with pytest.raises(ValueError, match="already registered"):
        register_pass("shlo-op-stats")(lambda op, options: None)


def test_option_help_lists_kebab_names() -> None:
    names = [name for name, _, _ in _PASS.option_help()]
    assert names == ["limit", "ratio", "verbose", "keep", "mode"]
