"""Calls whose answer depends on more than the tensors: Python numbers the model takes, buffers
it updates in training mode, inputs it updates in place, and gradients through torch.compile.
Each compiled call is compared with eager on the same inputs, call after call."""

from __future__ import annotations

import copy
import re
import warnings
from typing import Any

import pytest
import torch
from torch.testing import assert_close

from shlo.api import FrontendError, ShloError, compile_torch, import_model
from shlo.torch.dynamo import ShloFallbackWarning


class Scale(torch.nn.Module):
    def forward(self, x: torch.Tensor, scale: float, shift: int) -> torch.Tensor:
        return x * scale + shift


class Prefix(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: int) -> torch.Tensor:
        return x[:n] * 2


class Branch(torch.nn.Module):
    def forward(self, x: torch.Tensor, s: float) -> torch.Tensor:
        return x * 2 if s > 0 else x - 1


def test_python_numbers_are_runtime_inputs() -> None:
    x = torch.randn(5)
    compiled = compile_torch(Scale(), (x, 0.5, 3))
    for scale, shift in ((0.5, 3), (2.0, -7), (-1.25, 0)):
        assert_close(compiled(x, scale, shift), Scale()(x, scale, shift), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "scale, shift, refusal",
    [
        (0.5, 2.5, r"args\[2\] is float 2.5, and the model was compiled with an int: compile"),
        (2, 3, r"args\[1\] is int 2, and the model was compiled with a float: compile again"),
        (0.5, 2**64, r"beyond int64|does not fit in int64"),
        (0.5, "3", r"args\[2\] is str '3', and the model was compiled with an int"),
    ],
)
def test_a_number_of_another_type_than_compiled_is_refused_naming_it(
    scale: Any, shift: Any, refusal: str
) -> None:
    """An int given where the model was compiled with a float, or the other way round, would
    be computed in the type of the first call (2.5 as 2, silently); eager promotes by type."""
    x = torch.randn(5)
    compiled = compile_torch(Scale(), (x, 0.5, 3))
    with pytest.raises(Exception, match=refusal) as raised:
        compiled(x, scale, shift)
    assert isinstance(raised.value, ShloError)


def test_an_int_beyond_int64_stays_in_the_graph_and_is_refused_as_eager_cannot_trace_it() -> None:
    with pytest.raises(ShloError, match="int too big to convert"):
        compile_torch(Scale(), (torch.randn(5), 0.5, 2**70))


def test_python_numbers_import_as_stablehlo_tensors() -> None:
    text = import_model(Scale(), (torch.ones(3), 0.5, 3)).module.text()
    assert "%arg1: tensor<f32>, %arg2: tensor<i64>" in text
    assert "tensor.extract" not in text and "arith." not in text


class _ReturnsNumbers(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> Any:
        return x.numel(), bool(x.shape[0] > 2), x.shape[1] * 0.5, x * 2


def test_numbers_a_model_returns_come_back_as_python_numbers() -> None:
    x = torch.ones(3, 4)
    compiled = compile_torch(_ReturnsNumbers(), (x,))
    got, want = compiled(x), _ReturnsNumbers()(x)
    assert [type(value) for value in got[:3]] == [int, bool, float]
    assert got[:3] == want[:3] == (12, True, 2.0)
    assert_close(got[3], want[3])
    text = compiled.imported.module.text()
    assert "-> (tensor<i64>, tensor<i1>, tensor<f64>, tensor<3x4xf32>)" in text


def test_a_float64_model_takes_its_numbers_as_float64() -> None:
    x = torch.randn(4, dtype=torch.float64)
    compiled = compile_torch(Scale(), (x, 0.1, 1))
    assert "%arg1: tensor<f64>" in compiled.imported.module.text()
    got = compiled(x, 1 / 3, 2)
    assert got.dtype == torch.float64
    assert_close(got, Scale()(x, 1 / 3, 2), rtol=1e-15, atol=1e-15)  # not rounded to f32


@pytest.mark.parametrize(
    ("model", "example", "other", "name"),
    [(Prefix(), 3, 4, "args[1]"), (Branch(), 0.5, -1.0, "args[1]")],
)
def test_a_number_that_sets_a_shape_or_branch_is_fixed_and_guarded(
    model: torch.nn.Module, example: float, other: float, name: str
) -> None:
    x = torch.arange(6.0)
    compiled = compile_torch(model, (x, example))
    assert_close(compiled(x, example), model(x, example))
    with pytest.raises(
        FrontendError, match=rf"argument {re.escape(name)} was {example}.*got {other}"
    ):
        compiled(x, other)


def test_a_keyword_number_that_sets_a_length_is_read_at_each_call() -> None:
    """`x[:n]` of a keyword number: a result cut to n after each call (as Python slices)."""

    class Keyword(torch.nn.Module):
        def forward(self, x: torch.Tensor, *, n: int) -> torch.Tensor:
            return x[:n]

    model, x = Keyword(), torch.arange(6.0)
    compiled = compile_torch(model, (x,), {"n": 2})
    for n in (2, 5, 0, -1, 9):
        assert_close(compiled(x, n=n), model(x, n=n))


def test_a_fixed_keyword_number_is_named() -> None:
    class Keyword(torch.nn.Module):
        def forward(self, x: torch.Tensor, *, n: int) -> torch.Tensor:
            return x.reshape(n, -1)

    compiled = compile_torch(Keyword(), (torch.arange(6.0),), {"n": 2})
    with pytest.raises(FrontendError, match="argument n was 2"):
        compiled(torch.arange(6.0), n=3)


def _batch_norm_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8))


def test_training_mode_returns_the_output_and_updates_buffers_as_eager() -> None:
    model, eager = _batch_norm_model(), _batch_norm_model()
    x = torch.randn(4, 8)
    compiled = compile_torch(model, (x,))
    for step in range(3):
        got, want = compiled(x + step), eager(x + step)
        assert got.shape == want.shape == (4, 8)
        assert_close(got, want, rtol=1e-5, atol=1e-5)
        for name, buffer in eager[1].named_buffers():
            assert_close(getattr(model[1], name), buffer, rtol=1e-5, atol=1e-6)
    assert int(model[1].num_batches_tracked) == 3


def test_training_mode_with_a_parameter_archive_is_refused(tmp_path) -> None:
    with pytest.raises(FrontendError, match=r"updates 1\.running_mean.*model\.eval\(\)"):
        compile_torch(_batch_norm_model(), (torch.randn(4, 8),), parameters=tmp_path / "w.irpa")


def test_an_input_updated_in_place_is_updated_as_in_eager() -> None:
    class Doubles(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x.mul_(2)
            return x + 1

    compiled = compile_torch(Doubles(), (torch.ones(3),))
    mine, theirs = torch.arange(3.0), torch.arange(3.0)
    assert_close(compiled(mine), Doubles()(theirs))
    assert torch.equal(mine, theirs)


def test_torch_compile_in_training_mode_matches_eager() -> None:
    model, eager = _batch_norm_model(), _batch_norm_model()
    compiled = torch.compile(model, backend="shlo")
    x = torch.randn(4, 8)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", ShloFallbackWarning)
        for step in range(2):
            assert_close(compiled(x + step), eager(x + step), rtol=1e-5, atol=1e-5)
    assert_close(model[1].running_var, eager[1].running_var, rtol=1e-5, atol=1e-6)


def test_training_loop_through_torch_compile_matches_eager() -> None:
    torch.manual_seed(1)
    eager = torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.BatchNorm1d(16), torch.nn.Linear(16, 2)
    )
    model = copy.deepcopy(eager)
    compiled = torch.compile(model, backend="shlo")
    x, target = torch.randn(4, 8), torch.randn(4, 2)
    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, eager)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShloFallbackWarning)  # forward and backward compile
        for step in range(3):
            losses = []
            for run, optimizer in zip((compiled, eager), optimizers, strict=True):
                optimizer.zero_grad()
                loss = ((run(x + step) - target) ** 2).mean()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    for mine, theirs in zip(model.parameters(), eager.parameters(), strict=True):
        assert_close(mine, theirs, rtol=1e-5, atol=1e-6)


class _SpectrumOfLinear(torch.nn.Module):
    """A complex FFT, which shlo cannot lower, after a layer that has gradients."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.fft(self.linear(x).to(torch.complex64)).abs()


def test_training_graph_shlo_cannot_compile_falls_back_with_a_warning() -> None:
    torch.manual_seed(4)
    eager = _SpectrumOfLinear()
    model = copy.deepcopy(eager)
    x = torch.randn(4, 8)
    with pytest.warns(ShloFallbackWarning, match="_fft_c2c") as caught:
        torch.compile(model, backend="shlo")(x).sum().backward()
    assert len([w for w in caught if issubclass(w.category, ShloFallbackWarning)]) == 2
    eager(x).sum().backward()  # forward and backward graph each said so; gradients still right
    assert_close(model.linear.weight.grad, eager.linear.weight.grad, rtol=1e-5, atol=1e-6)


def test_numbers_and_training_mode_together() -> None:
    class Scaled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm = torch.nn.BatchNorm1d(4)

        def forward(self, x: torch.Tensor, scale: float) -> torch.Tensor:
            return self.norm(x) * scale

    model, eager = Scaled(), Scaled()
    x = torch.randn(3, 4)
    compiled = compile_torch(model, (x, 2.0))
    assert compiled.imported.numbers and list(compiled.imported.live_state) == [
        "norm.running_mean",
        "norm.running_var",
        "norm.num_batches_tracked",
    ]
    for scale in (2.0, -0.5):
        assert_close(compiled(x, scale), eager(x, scale), rtol=1e-5, atol=1e-5)
    assert_close(model.norm.running_mean, eager.norm.running_mean)


@pytest.mark.parametrize(
    "remainder",
    [
        lambda x, y: torch.remainder(x, -2.5),
        lambda x, y: torch.remainder(x, y),
        lambda x, y: x % 3,
        lambda x, y: torch.remainder(x.int(), -5),
        lambda x, y: torch.remainder(x.int(), 2.5),
    ],
)
def test_remainder_takes_the_divisors_sign(remainder: Any) -> None:
    class Remainder(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return remainder(x, y)

    torch.manual_seed(2)
    x, y = torch.randn(4, 5) * 10, torch.randn(4, 5) * 3
    got, want = compile_torch(Remainder(), (x, y))(x, y), Remainder()(x, y)
    assert got.dtype == want.dtype
    assert_close(got, want, rtol=1e-6, atol=1e-5)


def test_training_through_torch_compile_after_a_batch_size_change() -> None:
    # A new batch size makes dynamo's graph shape-polymorphic: shlo compiles each shape.
    torch.manual_seed(3)
    eager = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16))
    model = copy.deepcopy(eager)
    compiled = torch.compile(model, backend="shlo")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ShloFallbackWarning)
        for batch in (4, 5, 6, 5):
            x = torch.randn(batch, 8)
            for run, owner in ((compiled, model), (eager, eager)):
                owner.zero_grad()
                run(x).square().mean().backward()
            assert_close(model[0].weight.grad, eager[0].weight.grad, rtol=1e-5, atol=1e-6)


class Draws(torch.nn.Module):
    """Two uniform draws of one shape, and randn (torch-mlir's Box-Muller of two draws)."""

    def forward(self) -> tuple[torch.Tensor, ...]:
        normal = torch.randn(512, 1024)
        return torch.rand(1000), torch.rand(1000), normal.mean(), normal.std(), torch.rand(3, 4)


@pytest.mark.parametrize("target", ["llvm-cpu", "vulkan"])
def test_random_draws_are_independent_and_distributed_as_asked(target: str) -> None:
    """IREE's own stablehlo.rng gave two draws the same numbers and randn a standard deviation
    of 1.056; 524,288 normal samples have a standard error of 0.0014 for the mean."""
    first, second, mean, std, small = compile_torch(Draws(), (), target=target)()
    assert not torch.equal(first, second)
    assert 0.0 <= float(first.min()) and float(first.max()) < 1.0
    assert abs(float(first.mean()) - 0.5) < 0.03  # 1,000 uniforms: standard error 0.009
    assert abs(float(mean)) < 0.006 and abs(float(std) - 1.0) < 0.005
    assert small.shape == (3, 4) and small.dtype == torch.float32
    assert len(set(small.flatten().tolist())) == 12


class Spread(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.var(x, dim=[2, 3], correction=2), torch.std(x, dim=[2, 3])


def test_the_variance_of_many_values_far_from_zero_matches_eager() -> None:
    """torch-mlir sums var and std in f64; IREE's demotion to f32 gave 0.1995 for 0.0833."""
    x = torch.rand(1, 2, 1024, 8192, generator=torch.Generator().manual_seed(0)) + 100
    got = compile_torch(Spread(), (x,))(x)
    assert_close(got, Spread()(x), rtol=1e-5, atol=0)
