"""Three-way comparison: interpreter vs IREE (vs eager), and naming the first wrong op."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from shlo.compare import compare_devices
from shlo.ir.module import parse_source
from shlo.ir.source import Source
from shlo.ir.worlds import ContextPolicy, get_world
from shlo.tools.cli import main

PROGRAM = """// reference
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = stablehlo.multiply %x, %c : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  %2 = stablehlo.add %1, %x : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""
X = np.array([0.1, 0.2, 0.3, 0.4], np.float32)


def _module(text: str, name: str):
    world = get_world("stablehlo")
    return parse_source(world, world.make_context(ContextPolicy()), Source(name, text.encode()))


def test_matching_program_agrees_everywhere() -> None:
    reports = compare_devices(_module(PROGRAM, "ref.mlir"), [X], devices=["local-task"])
    assert [r.ok for r in reports] == [True] and reports[0].divergence is None


def test_every_device_of_the_table_can_be_named() -> None:
    reports = compare_devices(_module(PROGRAM, "ref.mlir"), [X], devices=["local-sync"])
    assert [(r.device, r.ok) for r in reports] == [("local-sync", True)]


def test_injected_wrong_constant_is_named() -> None:
    wrong = PROGRAM.replace("3.0, 4.0]", "3.5, 4.0]")
    (report,) = compare_devices(
        _module(PROGRAM, "ref.mlir"),
        [X],
        candidate=_module(wrong, "bad.mlir"),
        devices=["local-task"],
    )
    assert not report.ok
    assert report.divergence.op == "stablehlo.constant"
    assert report.divergence.location == "bad.mlir:3:8"
    assert "3.500000e+00" in report.divergence.text


def test_a_candidate_of_another_shape_differs_without_a_divergence() -> None:
    """Values pair up op by op only when both programs have as many top-level ops."""
    longer = PROGRAM.replace(
        "%2 = stablehlo.add %1, %x",
        "%9 = stablehlo.negate %x : tensor<4xf32>\n  %2 = stablehlo.add %1, %9",
    )
    (report,) = compare_devices(
        _module(PROGRAM, "ref.mlir"),
        [X],
        candidate=_module(longer, "long.mlir"),
        devices=["local-task"],
    )
    assert not report.ok and report.divergence is None


def test_cli_compares_a_torch_model_with_eager(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "compare",
                "shlo.tools.demo_models:MLP",
                "--input=2x64xf32=0.5",
                "--device",
                "local-task",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "interpreter all" in out and "eager       [0]" in out and "MISMATCH" not in out


def test_cli_reports_the_divergence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ref.mlir").write_text(PROGRAM)
    (tmp_path / "bad.mlir").write_text(
        PROGRAM.replace("stablehlo.add %1, %x", "stablehlo.subtract %1, %x")
    )
    assert (
        main(
            [
                "compare",
                str(tmp_path / "ref.mlir"),
                "--input=4xf32=0.1,0.2,0.3,0.4",
                "--candidate",
                str(tmp_path / "bad.mlir"),
                "--device",
                "local-task",
            ]
        )
        == 1
    )
    out = capsys.readouterr().out
    assert f"first divergence on local-task: stablehlo.subtract at {tmp_path}/bad.mlir:6:8" in out
