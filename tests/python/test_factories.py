"""`shlo import` finds a factory as Python users expect: a module in the current folder, or a
file named by path; what goes wrong is one line naming the factory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

MODELS = """
import torch

def small():
    return torch.nn.Linear(3, 2), (torch.rand(4, 3),)

def broken():
    raise RuntimeError("no weights here")

NOT_A_FACTORY = 3
NOTHING = None

def forward(x):
    return x + 1

instance = torch.nn.Linear(3, 2)
"""


def _shlo(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "shlo", *argv], cwd=cwd, env=env, capture_output=True, text=True
    )


@pytest.fixture
def models(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "mymodels.py").write_text(MODELS)
    (folder / "failing.py").write_text("raise RuntimeError('at import')\n")
    (folder / "script.py").write_text("import sys\nsys.exit(2)\n")
    return folder


@pytest.mark.parametrize("spelling", ["mymodels:small", "./mymodels.py:small", "mymodels.py:small"])
def test_factory_from_the_current_folder(models: Path, spelling: str) -> None:
    done = _shlo("import", spelling, "-o", "m.mlir", cwd=models)
    assert done.returncode == 0, done.stderr
    assert "-> tensor<4x2xf32>" in (models / "m.mlir").read_text()


def test_factory_from_a_path_elsewhere(models: Path) -> None:
    done = _shlo("import", "project/mymodels.py:small", "-o", "-", cwd=models.parent)
    assert done.returncode == 0, done.stderr
    assert "func.func @main(%arg0: tensor<4x3xf32>)" in done.stdout


@pytest.mark.parametrize(
    ("spelling", "message"),
    [
        ("mymodels:large", "mymodels has no 'large'; it defines broken, forward, small"),
        ("mymodels:NOT_A_FACTORY", "'NOT_A_FACTORY' is a int, not a factory"),
        ("mymodels:NOTHING", "'NOTHING' is a NoneType, not a factory"),
        ("mymodels:forward", "(it is called with no arguments: name a model class, a model,"),
        ("failing:small", "importing failing raised RuntimeError: at import"),
        ("script.py:small", "importing script.py called sys.exit(2) (a script?"),
        ("mymodels:broken", "mymodels:broken() raised RuntimeError: no weights here"),
        ("nowhere.py:small", "no file nowhere.py"),
        ("nomodule:small", "No module named 'nomodule'"),
    ],
)
def test_factory_errors_are_one_line(models: Path, spelling: str, message: str) -> None:
    done = _shlo("import", spelling, "-o", "-", cwd=models)
    assert done.returncode == 1
    assert done.stderr.startswith("shlo: ") and message in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_model_named_is_the_model(models: Path) -> None:
    """A module instance is the model itself, not a factory to call."""
    done = _shlo("import", "mymodels:instance", "--input", "4x3xf32", "-o", "-", cwd=models)
    assert done.returncode == 0, done.stderr
    assert "-> tensor<4x2xf32>" in done.stdout
