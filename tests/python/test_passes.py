"""shlo's Python passes on a real model's StableHLO."""

from __future__ import annotations

import re

import pytest
import torch

from shlo.api import PipelineRunError, flatten, run_pipeline
from shlo.frontend.torch_import import import_model
from shlo.tools.demo_models import SmallCNN


@pytest.fixture(scope="module")
def cnn_module():
    return flatten(import_model(SmallCNN().eval(), (torch.randn(1, 3, 32, 32),)).module)


def test_check_support_lists_every_luminal_problem_in_one_run(cnn_module) -> None:
    with pytest.raises(PipelineRunError) as info:
        run_pipeline(cnn_module, "builtin.module(shlo-check-support{target=luminal})")
    message = str(info.value)
    per_op = re.findall(r"error: luminal: (.+)", message)
    summary = re.search(r"shlo-check-support: (\d+) unsupported for luminal: (.+)", message)
    assert summary and int(summary.group(1)) == len(per_op) > 1
    # The weights are dense_resource literals; Luminal takes splat literals only.
    assert "stablehlo.constant x" in summary.group(2)
    assert "convolution" not in summary.group(2)  # the CNN's convolutions are NCHW


@pytest.mark.parametrize("target", ["iree", "interpreter"])
def test_check_support_passes_a_model_its_target_runs(cnn_module, target: str) -> None:
    # The CNN compiles with IREE and runs in the interpreter (test_zoo, test_compare).
    run_pipeline(cnn_module, f"builtin.module(shlo-check-support{{target={target}}})")


def test_check_support_iree_names_every_op_iree_compile_stops_at() -> None:
    from shlo.backend.compile import compile_bytecode
    from shlo.errors import CompileError

    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    batch = torch.export.Dim("batch", min=1, max=64)
    module = flatten(
        import_model(model.eval(), (torch.randn(4, 8),), dynamic_shapes=({0: batch},)).module
    )
    with pytest.raises(PipelineRunError) as info:
        run_pipeline(module, "builtin.module(shlo-check-support{target=iree})")
    reported = re.findall(r"error: iree: failed to legalize operation '([\w.]+)'", str(info.value))
    # More than the one iree-compile names, all of the kind it names.
    assert len(reported) > 1 and set(reported) == {"stablehlo.dynamic_broadcast_in_dim"}
    with pytest.raises(CompileError, match="stablehlo.dynamic_broadcast_in_dim"):
        compile_bytecode(module.to_bytecode(), "llvm-cpu")


def test_run_pipeline_leaves_its_input_as_it_was(cnn_module) -> None:
    from shlo.ir.module import PrintOptions

    located = PrintOptions(debug_info=True)
    before = cnn_module.text(located)
    stripped = run_pipeline(cnn_module, "builtin.module(strip-debuginfo)")
    assert cnn_module.text(located) == before
    after = stripped.text(located)
    assert after.count("loc(unknown)") > before.count("loc(unknown)")
    # a pipeline in the module's own world works in its context: the weights are shared
    assert stripped.context is cnn_module.context
