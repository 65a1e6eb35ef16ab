"""The `shlo` command line: import -> compile -> run, and its error messages."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shlo.tools.cli import main, parse_tensor


def test_parse_tensor_syntax(tmp_path: Path) -> None:
    assert parse_tensor("2x3xf32=1,2,3,4,5,6").tolist() == [[1, 2, 3], [4, 5, 6]]
    assert parse_tensor("4xi64=7").tolist() == [7, 7, 7, 7]
    assert parse_tensor("2x2xf16").dtype == np.float16
    np.save(tmp_path / "x.npy", np.arange(3))
    assert parse_tensor(f"@{tmp_path / 'x.npy'}").tolist() == [0, 1, 2]


def test_import_compile_run_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mlir, vmfb, out = tmp_path / "m.mlir", tmp_path / "m.vmfb", tmp_path / "out.npy"
    assert (
        main(["import", "shlo.tools.demo_models:MLP", "--input", "2x64xf32", "-o", str(mlir)]) == 0
    )
    assert "func.func @main(%arg0: tensor<2x64xf32>) -> tensor<2x10xf32>" in mlir.read_text()
    assert main(["compile", str(mlir), "--target", "llvm-cpu", "-o", str(vmfb)]) == 0
    assert "compiled with: iree-compile" in capsys.readouterr().err
    assert main(["run", str(vmfb), "--input=2x64xf32=0.5", f"--output=@{out}"]) == 0
    assert capsys.readouterr().out.startswith("result[0]: 2x10xfloat32")
    np.save(tmp_path / "ref.npy", np.load(out))
    assert (
        main(
            ["run", str(vmfb), "--input=2x64xf32=0.5", f"--expected-output=@{tmp_path / 'ref.npy'}"]
        )
        == 0
    )
    assert (
        main(
            [
                "run",
                str(vmfb),
                "--input=2x64xf32=0.25",
                f"--expected-output=@{tmp_path / 'ref.npy'}",
            ]
        )
        == 1
    )
    assert "result[0] differs from the expected output" in capsys.readouterr().err
    assert main(["bench", str(vmfb), "--input=2x64xf32=1", "--runs", "3"]) == 0
    assert "median" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["import", "no.such.module:f", "--input", "2xf32", "-o", "-"], "cannot load"),
        (["run", "missing.vmfb"], "missing.vmfb"),
        (["compile", "x.mlir", "--target", "tpu", "-o", "x.vmfb"], "could not open input"),
        (["run", __file__, "--input=2xq7"], "not a valid IREE module"),
    ],
)
def test_errors_are_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("shlo: ") and message in err and "Traceback" not in err
