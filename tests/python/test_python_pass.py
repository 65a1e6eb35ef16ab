"""Python passes: typed options in MLIR's syntax, registration rules, failures as diagnostics."""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from shlo.errors import PipelineError
from shlo.pipeline.python_pass import PythonPass, register_pass
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
    with pytest.raises(PipelineError, match=message):
        _PASS.parse_options(text)


def test_options_on_a_pass_without_options() -> None:
    bare = PythonPass("bare", "", lambda op, options: None)
    with pytest.raises(PipelineError, match="takes no options"):
        bare.parse_options("x=1")


def test_duplicate_names_are_rejected() -> None:
    assert "shlo-op-stats" in python_passes()
    with pytest.raises(ValueError, match="already registered"):
        register_pass("shlo-op-stats")(lambda op, options: None)


def test_option_help_lists_kebab_names() -> None:
    names = [name for name, _, _ in _PASS.option_help()]
    assert names == ["limit", "ratio", "verbose", "keep", "mode"]


def test_the_pass_index_names_the_module_that_registers_each_pass() -> None:
    """A pipeline imports a pass's module by shlo.passes.PASS_MODULES: a pass missing there
    could not be named, and one indexed under the wrong module would not load."""
    import pkgutil

    import shlo.passes

    registered = python_passes(plugins=False)
    for module in pkgutil.iter_modules(shlo.passes.__path__):
        importlib.import_module(f"shlo.passes.{module.name}")
    own = {
        name: (found.expands_to or found.run).__module__.removeprefix("shlo.passes.")
        for name, found in registered.items()
        if (found.expands_to or found.run).__module__.startswith("shlo.passes.")
    }
    assert own == shlo.passes.PASS_MODULES


def test_a_native_pipeline_imports_no_python_pass(tmp_path: Path) -> None:
    """shlo-opt with native passes only leaves shlo's Python passes unimported (their import
    would be most of a small input's run time); naming one imports that one alone."""
    source = tmp_path / "in.mlir"
    source.write_text(
        "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n"
    )
    output = str(tmp_path / "out.mlir")
    script = (
        "import sys\nfrom shlo.tools.opt_main import main\n"
        f"assert main([{str(source)!r}, *sys.argv[1:], '-o', {output!r}]) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('shlo.passes.')))"
    )
    for flags, imported in (
        (["--canonicalize", "--cse"], []),
        (["--canonicalize", "--shlo-op-stats"], ["shlo.passes.op_stats"]),
    ):
        done = subprocess.run(
            [sys.executable, "-c", script, *flags], capture_output=True, text=True, check=True
        )
        assert done.stdout.strip().splitlines()[-1] == repr(imported)
