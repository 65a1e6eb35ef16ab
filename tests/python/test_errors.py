"""Every error that leaves a public entry point on bad input is a ShloError of its stage, which
each command catches once and reports in one line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from shlo import api, errors
from shlo.interpreter.evaluate import interpret_module
from shlo.ir.portable import deserialize, serialize
from shlo.runtime.value_syntax import parse_values
from shlo.tools.cli import main as shlo_main
from shlo.tools.opt_main import main as opt_main
from shlo.tools.translate_main import main as translate_main

# where each command line names a file of the test's own folder
MLIR, BAD, OUT = "<square.mlir>", "<malformed.mlir>", "<output>"
SQUARE = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _square() -> api.IRModule:
    return api.load(SQUARE.encode())


# (a call on bad input, the stage's error it must raise)
CALLS: dict[str, tuple[Callable[[], Any], type[errors.ShloError]]] = {
    "load a missing file": (lambda: api.load("/no/such/file.mlir"), errors.UsageError),
    "load malformed text": (lambda: api.load(b"func.func @main("), errors.ParseError),
    "load an unknown world": (lambda: api.load(SQUARE.encode(), "xla"), errors.UsageError),
    "pipeline syntax": (lambda: api.run_pipeline(_square(), "canonicalize{"), errors.PipelineError),
    "unknown pass": (
        lambda: api.run_pipeline(_square(), "builtin.module(no-such-pass)"),
        errors.UnknownPass,
    ),
    "bad pass option": (
        lambda: api.run_pipeline(_square(), "shlo-flatten{no-such-option=1}"),
        errors.PipelineError,
    ),
    "unknown target": (lambda: api.compile_module(_square(), "tpu"), errors.CompileError),
    "not a vmfb": (lambda: api.LoadedModule(b"not a module"), errors.RunError),
    "unknown device": (lambda: api.LoadedModule(b"", "no-such-device"), errors.RunError),
    "bad output type": (
        lambda: api.import_model(torch.nn.ReLU(), (torch.ones(2),), output_type="tosa"),
        errors.FrontendError,
    ),
    "outputs differ": (
        lambda: api.assert_close([np.ones(2)], [np.zeros(2)]),
        errors.NumericsError,
    ),
    "no such function": (
        lambda: interpret_module(_square(), [], function="forward"),
        errors.InterpreterError,
    ),
    "version out of range": (lambda: serialize(_square(), "0.1.0"), errors.PortableError),
    "not an artifact": (lambda: deserialize(b"\x00garbage"), errors.ShloError),
    "bad value": (lambda: parse_values(["2xq7=1"]), errors.UsageError),
}


@pytest.mark.parametrize("case", sorted(CALLS))
def test_bad_input_to_an_entry_point_raises_its_stage_error(case: str) -> None:
    call, stage = CALLS[case]
    with pytest.raises(errors.ShloError) as raised:
        call()
    assert isinstance(raised.value, stage), repr(raised.value)


@pytest.mark.parametrize(
    ("main", "argv", "prog", "words"),
    [
        (opt_main, ["/no/such/file.mlir"], "shlo-opt", "/no/such/file.mlir"),
        (opt_main, [MLIR, "--pass-pipeline=builtin.module(x{"], "shlo-opt", "x{"),
        (opt_main, [MLIR, "--no-such-pass"], "shlo-opt", "no-such-pass"),
        (translate_main, ["/no/such/file.mlir"], "shlo-translate", "/no/such/file.mlir"),
        (translate_main, [MLIR, "--interpret", "--args=[1]"], "shlo-translate", "args"),
        (shlo_main, ["compile", "/no/such/file.mlir", "-o", OUT], "shlo", "/no/such/file"),
        (shlo_main, ["compile", MLIR, "--target", "tpu", "-o", OUT], "shlo", "tpu"),
        (shlo_main, ["run", MLIR, "--input=2xq7"], "shlo", "is MLIR text, not a compiled"),
        (shlo_main, ["bench", MLIR, "--runs", "0"], "shlo", "--runs 0"),
        (shlo_main, ["import", "no.such.module:f", "-o", OUT], "shlo", "cannot load"),
        (shlo_main, ["compare", BAD], "shlo", "error"),
    ],
)
def test_each_command_reports_one_line(
    main: Callable[[list[str]], int],
    argv: list[str],
    prog: str,
    words: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "m.mlir").write_text(SQUARE)
    (tmp_path / "bad.mlir").write_text("func.func @main(")
    paths = {MLIR: tmp_path / "m.mlir", BAD: tmp_path / "bad.mlir", OUT: tmp_path / "o"}
    assert main([str(paths.get(arg, arg)) for arg in argv]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err and words in err, err
    lines = err.strip().splitlines()
    if lines[0].startswith(str(tmp_path)):  # MLIR's diagnostic, located in the user's file
        assert ": error: " in lines[0], err
    else:
        assert lines[0].startswith(f"{prog}: ") and len(lines) == 1, err
