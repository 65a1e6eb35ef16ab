"""A native crash while `compile_torch` imports and lowers a model is one error, and the caller
lives on: the import runs in a forked child (`shlo.frontend.forked`).

The crash is real: torch-mlir 20261001 dies with SIGSEGV lowering `var_mean` along the one
dimension of a 0-d tensor (as it did on `sum`, which shlo now reshapes first).
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys

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


JAX_THEN_TORCH = """
import jax.numpy as jnp
import torch
from shlo.api import compile_torch
from shlo.frontend.forked import can_fork

assert can_fork()
jnp.ones(3).block_until_ready()  # XLA's client starts its native threads
assert not can_fork()
x = torch.arange(-2.0, 2.0)
print(compile_torch(torch.nn.ReLU(), (x,))(x).tolist())
"""


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX is not installed")
def test_a_caller_running_jax_is_not_forked() -> None:
    """JAX's threads are invisible to `threading`, and a fork of them may deadlock (JAX warns):
    beside a running XLA client the import runs in the caller, without JAX's warning."""
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", JAX_THEN_TORCH],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "[0.0, 0.0, 0.0, 1.0]\n", "")
