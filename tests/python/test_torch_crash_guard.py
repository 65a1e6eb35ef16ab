"""A native crash while `compile_torch` imports and lowers a model is one error, and the caller
lives on: the import runs in a forked child (`shlo.frontend.forked`).

The crash is real: torch-mlir 20261001 dies with SIGSEGV lowering `var_mean` along the one
dimension of a 0-d tensor (as it did on `sum`, which shlo now reshapes first).
"""

from __future__ import annotations

import os
import signal

import pytest
import torch

from shlo.api import FrontendError, compile_torch
from shlo.frontend.forked import Crashed, announce, call_forked, can_fork
from shlo.torch.dynamo import ShloFallbackWarning


class VarMean(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.var_mean(x * 2, 0, keepdim=True)


def test_a_native_crash_in_torch_mlir_is_one_error_naming_the_stage_and_ops() -> None:
    x = torch.tensor(2.0)
    assert can_fork(), "another thread would make the import run here, and this test end"
    with pytest.raises(FrontendError) as raised:
        compile_torch(VarMean(), (x,))
    lines = str(raised.value).splitlines()
    assert lines[0] == (
        "native code crashed (SIGSEGV, segmentation fault) in torch-mlir's pipeline "
        "'Lowering TorchFX IR -> Torch Backend IR', in a child process; the model's ops:"
    )
    assert [line.split(" (at ")[0] for line in lines[1:]] == [
        "  aten.mul.Tensor",
        "  aten.var_mean.dim",
    ]
    assert all(__file__ in line for line in lines[1:])
    # the caller lives on, and compiles the next model as before
    model = torch.nn.Linear(3, 2)
    y = torch.randn(2, 3)
    torch.testing.assert_close(compile_torch(model, (y,))(y), model(y))


def test_torch_compile_runs_a_graph_that_crashes_torch_mlir_in_eager_with_a_warning() -> None:
    x = torch.tensor(2.0)
    with pytest.warns(ShloFallbackWarning, match=r"native code crashed \(SIGSEGV"):
        got = torch.compile(VarMean(), backend="shlo")(x)
    torch.testing.assert_close(got, VarMean()(x), equal_nan=True)


def test_a_child_killed_by_a_signal_is_reported_with_its_last_stage() -> None:
    def killed() -> int:
        announce("a stage")
        os.kill(os.getpid(), signal.SIGABRT)
        return 0

    assert call_forked(killed) == Crashed("SIGABRT, aborted", "a stage")


def test_what_the_child_raises_is_raised_in_the_caller() -> None:
    def refuses() -> None:
        raise FrontendError("the child's refusal")

    with pytest.raises(FrontendError, match="^the child's refusal$"):
        call_forked(refuses)
