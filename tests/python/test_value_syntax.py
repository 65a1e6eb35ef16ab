"""iree-run-module's value syntax: what shlo reads is what iree-run-module reads, what it prints
is what iree-run-module prints, and a printed result pastes back exactly."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from shlo.errors import UsageError
from shlo.runtime.value_syntax import format_value, parse_value, parse_values, save_value
from shlo.tools.cli import main

VALUES = [
    ("2x2xf32=[1 2][3 4]", np.array([[1, 2], [3, 4]], np.float32)),
    ("2x2xf32=1 2 3 4", np.array([[1, 2], [3, 4]], np.float32)),
    ("2x3xf32=1,2,3,4,5,6", np.arange(1, 7, dtype=np.float32).reshape(2, 3)),
    ("4xi64=9007199254740993", np.full(4, 9007199254740993, np.int64)),
    ("2xbf16=1.5 0.1", np.array([1.5, 0.1], ml_dtypes.bfloat16)),
    ("3xi1=1 0 true", np.array([True, False, True])),
    ("2xui8=255 0", np.array([255, 0], np.uint8)),
    ("2xf64=nan -inf", np.array([np.nan, -np.inf])),
    ("i32=-5", np.array(-5, np.int32)),
    ("2x0xf32", np.zeros((2, 0), np.float32)),
]


@pytest.mark.parametrize(("text", "want"), VALUES, ids=[text for text, _ in VALUES])
def test_values_read_exactly_and_print_back_the_same(text: str, want: np.ndarray) -> None:
    got = parse_value(text)
    assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    again = parse_value(format_value(got))
    assert again.dtype == want.dtype and np.array_equal(again, want, equal_nan=True)


def test_results_print_as_iree_run_module_prints_them() -> None:
    assert format_value(np.arange(8, dtype=np.float32).reshape(2, 2, 2)) == (
        "2x2x2xf32=[[0 1][2 3]][[4 5][6 7]]"
    )
    assert format_value(np.array([[2, 4], [6, 0.2]], np.float32)) == "2x2xf32=[2 4][6 0.2]"
    assert format_value(np.array([9007199254740993, -1], np.int64)) == "2xi64=9007199254740993 -1"


def test_npy_files_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "x.npy"
    save_value(f"@{path}", np.arange(3))
    save_value(f"+@{path}", np.ones(2, np.float32))
    first, second, again = parse_values([f"@{path}", f"+@{path}", f"@{path}"])
    assert first.tolist() == [0, 1, 2] and second.tolist() == [1, 1] and again.tolist() == [0, 1, 2]
    with pytest.raises(UsageError, match="holds no more arrays"):
        parse_values([f"@{path}", f"+@{path}", f"+@{path}"])


def test_bfloat16_npy_files_read_back_as_bfloat16(tmp_path: Path) -> None:
    """np.save writes ml_dtypes' bfloat16 as 2-byte voids (`|V2`); `@x.npy` reads it back as
    bfloat16, bit for bit, NaN and -0.0 included."""
    path = tmp_path / "x.npy"
    value = np.array([1.5, np.nan, -0.0, -np.inf], ml_dtypes.bfloat16)
    save_value(f"@{path}", value)
    assert np.load(path).dtype == np.dtype("V2")
    (read,) = parse_values([f"@{path}"])
    assert read.dtype == ml_dtypes.bfloat16 and read.tobytes() == value.tobytes()
    assert format_value(read) == "4xbf16=1.5 nan -0 -inf"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2xq7=1", "expected SHAPExTYPE[=values]"),
        ("2xf32=1 2 3", "3 values for shape 2xf32"),
        ("2xi8=300", "300 is outside int8"),
        ("2xf32=abc", "could not convert"),
    ],
)
def test_bad_values_are_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        parse_value(text)


def test_shlo_run_agrees_with_iree_run_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, vmfb = tmp_path / "m.mlir", tmp_path / "m.vmfb"
    source.write_text(
        "func.func @main(%x: tensor<2x2x2xf32>, %y: tensor<3xi64>, %z: tensor<2xbf16>)"
        " -> (tensor<2x2x2xf32>, tensor<3xi64>, tensor<2xbf16>) {\n"
        "  %0 = stablehlo.add %x, %x : tensor<2x2x2xf32>\n"
        "  return %0, %y, %z : tensor<2x2x2xf32>, tensor<3xi64>, tensor<2xbf16>\n}\n"
    )
    assert main(["compile", str(source), "-o", str(vmfb)]) == 0
    inputs = [
        "2x2x2xf32=[[1 2][3 4]][[5 6][7 0.1]]",
        "3xi64=9007199254740993 -1 5",
        "2xbf16=1.5 0.1",
    ]
    assert main(["run", str(vmfb), *(f"--input={text}" for text in inputs)]) == 0
    ours = capsys.readouterr().out.splitlines()
    tool = Path(sys.executable).parent / "iree-run-module"
    theirs = subprocess.run(
        [str(tool), f"--module={vmfb}", *(f"--input={text}" for text in inputs)],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert [line for line in ours if "hal.buffer_view" in line] == [
        line for line in theirs if "hal.buffer_view" in line
    ]
    printed = [line for line in ours if "=" in line]
    for mine, iree in zip(printed, [line for line in theirs if "=" in line], strict=True):
        a, b = parse_value(mine), parse_value(iree)
        assert a.dtype == b.dtype and np.array_equal(a, b)
    expected = [f"--expected-output={line}" for line in printed]
    assert main(["run", str(vmfb), *(f"--input={text}" for text in inputs), *expected]) == 0
