"""Batch and instance normalization of float16 held to eager: ATen's CPU kernel keeps the batch
statistics in float16 and normalizes as `x * alpha + beta`, where PyTorch's decomposition (what
torch-mlir lowers) keeps them in float32, which left almost every output a unit or two apart."""

from __future__ import annotations

import pytest
import torch

from shlo.api import compile_torch


class Norms(torch.nn.Module):
    """Training-mode batch norm with and without parameters, instance norm, and batch norm of
    float32 parameters (ATen's mixed types, statistics kept in float32)."""

    def __init__(self) -> None:
        super().__init__()
        self.batch = torch.nn.BatchNorm1d(6).half().train()
        self.bare = torch.nn.BatchNorm1d(6, affine=False, track_running_stats=False).half()
        self.instance = torch.nn.InstanceNorm1d(6, affine=True).half()
        self.mixed = torch.nn.BatchNorm1d(6).train()
        with torch.no_grad():
            for layer in (self.batch, self.instance, self.mixed):
                layer.weight.copy_(torch.linspace(0.5, 2.0, 6))
                layer.bias.copy_(torch.linspace(-1.0, 1.0, 6))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return self.batch(x), self.bare(x), self.instance(x), self.mixed(x)


@pytest.mark.slow  # four normalizations compiled: 40 s on 2 cores
def test_training_normalization_of_float16_matches_eager() -> None:
    torch.manual_seed(0)
    x = (torch.rand(3, 6, 4096) * 4 + 1).half()  # far from 0, so that each rounding shows
    eager, model = Norms(), Norms()
    compiled = compile_torch(model, (x.clone(),))
    for want, have in zip(eager(x), compiled(x), strict=True):
        assert have.dtype == want.dtype == torch.float16
        # float32 sums in another order, or a fused multiply-add, may move an output one step
        torch.testing.assert_close(have, want, rtol=0, atol=0.004)
        differ = (have != want).float().mean()
        assert differ < 0.01, differ
    # the running statistics are written back as eager writes them
    torch.testing.assert_close(model.batch.running_mean, eager.batch.running_mean)
    torch.testing.assert_close(model.batch.running_var, eager.batch.running_var)
