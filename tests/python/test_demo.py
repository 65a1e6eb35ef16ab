"""The demo's per-model path: artifacts on disk and a passing row per device."""

from __future__ import annotations

import json
from pathlib import Path

from shlo.backend.compile import Target
from shlo.tools.demo import demo_model, table
from shlo.tools.demo_models import DEMO_MODELS


def test_demo_model_leaves_artifacts_and_passes(tmp_path: Path) -> None:
    mlp = next(example for example in DEMO_MODELS if example.name == "mlp")
    devices = [("local-task", Target.LLVM_CPU), ("local-sync", Target.LLVM_CPU)]
    rows = demo_model(mlp, tmp_path, devices)
    assert [row["ok"] for row in rows] == [True, True]
    assert rows[0]["compile_s"] == rows[1]["compile_s"]  # one compile serves both CPU devices
    assert rows[0]["max_abs_error"] < 1e-4 and rows[0]["latency_ms"] > 0
    for row in rows:  # eager from several calls, with its spread
        low, high = row["eager_quartiles_ms"]
        assert 0 < low <= row["eager_ms"] <= high
    for name in ("mlp.mlir", "mlp.flat.mlir", "mlp.llvm-cpu.vmfb"):
        assert (tmp_path / name).stat().st_size > 0
    assert "iree-compile" in json.loads(json.dumps(rows))[0]["iree_compile"]
    assert "mlp       local-task" in table(rows) and "mlp       local-sync" in table(rows)
