"""Every error shlo raises for a user derives from ShloError, which each command catches once."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import shlo
from shlo.errors import ShloError
from shlo.tools.cli import main as shlo_main
from shlo.tools.opt_main import main as opt_main
from shlo.tools.translate_main import main as translate_main


def _error_classes() -> list[type]:
    found = []
    for info in pkgutil.walk_packages(shlo.__path__, "shlo."):
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            is_error = issubclass(value, Exception) and not issubclass(value, Warning)
            if is_error and value.__module__ == info.name:
                found.append(value)
    return found


def test_every_error_class_is_a_shlo_error() -> None:
    classes = _error_classes()
    assert len(classes) >= 20
    assert [c.__qualname__ for c in classes if not issubclass(c, ShloError)] == []


@pytest.mark.parametrize(
    ("main", "argv", "prog"),
    [
        (opt_main, ["/no/such/file.mlir"], "shlo-opt"),
        (translate_main, ["/no/such/file.mlir"], "shlo-translate"),
        (shlo_main, ["compile", "/no/such/file.mlir", "-o", "/tmp/x.vmfb"], "shlo"),
    ],
)
def test_each_command_reports_one_line(
    main: object, argv: list[str], prog: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{prog}: ") and "/no/such/file.mlir" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
