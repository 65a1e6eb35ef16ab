"""Shared fixtures; the `slow` marker is declared in pyproject.toml and skipped by default."""

from __future__ import annotations

import importlib.util
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

LIT_INPUTS = Path(__file__).resolve().parent.parent / "lit" / "Inputs"

# TensorFlow's tests: in the slow target (tools/check --slow installs the `tf` extra), and
# skipped wherever TensorFlow is absent.  Only child processes ever import it.
TENSORFLOW_MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("tensorflow") is None,
        reason="TensorFlow is not installed (pip install -e '.[tf]')",
    ),
]


def needs_tensorflow(test: Callable) -> Callable:
    """The marks of TensorFlow's tests, as a decorator."""
    for mark in TENSORFLOW_MARKS:
        test = mark(test)
    return test


def as_foreground_job() -> None:
    """`preexec_fn` for a command a test interrupts with Ctrl-C: SIGINT at its default, as a
    shell's foreground job has it.  A command started with SIGINT ignored (a test run launched
    in the background by a non-interactive shell) keeps ignoring it, as Python and every Unix
    tool do, so a Ctrl-C test must not inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


NESTED = """// Nested private calls and a dead function.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @dead() {
  return
}
"""


@pytest.fixture(scope="session", autouse=True)
def private_compile_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests compile into a cache of their own, not the user's ~/.cache/shlo."""
    os.environ["SHLO_CACHE_DIR"] = str(tmp_path_factory.mktemp("shlo-cache"))


@pytest.fixture
def nested_file(tmp_path: Path) -> Path:
    path = tmp_path / "nested.mlir"
    path.write_text(NESTED)
    return path


@pytest.fixture
def malformed_file() -> Path:
    return LIT_INPUTS / "malformed.mlir"
