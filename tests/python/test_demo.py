"""The README's demo runs and leaves a flat module behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from shlo.demo import main


def test_demo_flattens_to_one_function(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--output-dir", str(tmp_path)]) == 0
    flat = (tmp_path / "flat.mlir").read_text()
    assert flat.count("func.func") == 1 and "call" not in flat
    assert "@unused_debug_helper" in (tmp_path / "nested.mlir").read_text()
    assert "=== after:" in capsys.readouterr().out
