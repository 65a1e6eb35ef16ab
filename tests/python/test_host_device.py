"""Which host device compile_torch keeps for llvm-cpu code, decided by timings it is handed."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from shlo.api import compile_torch
from shlo.tools.demo_models import MLP
from shlo.torch.compiled_model import CompiledModel
from shlo.torch.host_device import POOL_WINS_MS, on_faster_host_device


@pytest.fixture(scope="module")
def on_pool() -> tuple[CompiledModel, torch.nn.Module, torch.Tensor]:
    model, x = MLP().eval(), torch.randn(8, 64)
    return compile_torch(model, (x,), device="local-task", use_cache=True), model, x


def fixed_timings(ms: dict[str, float], timed: list[str]) -> Callable:
    """A timer that answers from `ms` by device and records which devices it was asked about."""

    def timer(candidate: CompiledModel, call: Callable[[], object], runs: int) -> float:
        timed.append(candidate.loaded.device_name)
        return ms[candidate.loaded.device_name]

    return timer


@pytest.mark.parametrize(
    ("ms", "kept"),
    [
        ({"local-task": 0.07, "local-sync": 0.02}, "local-sync"),
        ({"local-task": 0.02, "local-sync": 0.07}, "local-task"),
    ],
)
def test_the_faster_device_is_kept(on_pool: tuple, ms: dict[str, float], kept: str) -> None:
    compiled, model, x = on_pool
    timed: list[str] = []
    chosen = on_faster_host_device(compiled, (x,), {}, timer=fixed_timings(ms, timed))
    assert chosen.loaded.device_name == kept
    assert set(timed) == {"local-task", "local-sync"} and len(timed) == 7  # 1 probe + 3 rounds
    with torch.no_grad():
        torch.testing.assert_close(chosen(x), model(x), rtol=1e-5, atol=1e-5)


def test_a_long_call_stays_on_the_pool_untimed(on_pool: tuple) -> None:
    compiled, _, x = on_pool
    timed: list[str] = []
    ms = {"local-task": POOL_WINS_MS * 2, "local-sync": 0.0}
    chosen = on_faster_host_device(compiled, (x,), {}, timer=fixed_timings(ms, timed))
    assert chosen is compiled and timed == ["local-task"]


def test_an_explicit_device_is_kept() -> None:
    model, x = MLP().eval(), torch.randn(8, 64)
    for device in ("local-task", "local-sync"):
        assert (
            compile_torch(model, (x,), device=device, use_cache=True).loaded.device_name == device
        )
