"""shlo's Python passes on a real model's StableHLO."""

from __future__ import annotations

import re

import pytest
import torch

from shlo.api import PipelineRunError, flatten, run_pipeline
from shlo.frontend import import_model
from shlo.models import SmallCNN


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
