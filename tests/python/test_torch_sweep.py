"""The OpInfo sweep's judge (`tools/torch_sweep.py`): eager in IREE's floating-point mode, tied
indices, random ops by distribution, eager's own deaths, and samples the checker must not
crash on."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import torch
from torch.utils import _pytree as pytree

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import torch_sweep  # noqa: E402
import torch_sweep_cases as cases  # noqa: E402


def _call(fn: object, *args: object) -> cases.Call:
    leaves, spec = pytree.tree_flatten((args, {}))
    return cases.Call(fn, leaves, spec)


def test_a_subnormal_reads_as_zero_in_eager_as_in_iree() -> None:
    """A subnormal times the largest float: IREE's CPU executors flush subnormals (no flag
    turns it off), so eager is judged in that mode; 1.0 here was counted a mismatch."""
    tiny = torch.finfo(torch.float32).smallest_normal / 4
    a = torch.tensor([[[tiny], [2.0]]])
    b = torch.tensor([[[-torch.finfo(torch.float32).max, float("inf"), 3.0]]])
    (verdict,) = cases.judge_all([_call(torch.bmm, a, b)], "llvm-cpu")
    assert verdict == {"status": "pass"}


def test_indices_of_tied_values_may_differ_and_wrong_ones_may_not() -> None:
    source = torch.tensor([[1.0, 3.0, 1.0, float("nan"), 3.0]])
    expected = torch.sort(source, stable=True).indices  # [0, 2, 1, 4, 3]
    ties_swapped = torch.tensor([[2, 0, 4, 1, 3]])
    other_values = torch.tensor([[0, 1, 2, 4, 3]])
    repeated = torch.tensor([[0, 0, 1, 4, 3]])
    assert cases.mismatch(ties_swapped, expected, inputs=[source]) is None
    assert cases.mismatch(other_values, expected, inputs=[source]) is not None
    assert cases.mismatch(repeated, expected, inputs=[source]) is not None
    top = torch.tensor([[3.0, 3.0, 1.0]]).argmax(dim=1)
    assert cases.mismatch(torch.tensor([1]), top, inputs=[torch.tensor([[3.0, 3.0, 1.0]])]) is None


def test_a_random_op_is_judged_by_distribution() -> None:
    """dropout2d as OpInfo calls it (under a fixed seed of its own): random, and a result that
    drops nothing is not one eager could draw."""
    (call,) = cases.samples("op:nn.functional.dropout2d", torch.float32)[2:3]
    eager = cases.run_eager(call)
    assert eager["draws"] is not None
    assert cases.unlike_draws(eager["draws"][-1], eager["draws"][:-1]) is None
    inputs = call.tensors()[0]
    assert cases.unlike_draws(inputs, eager["draws"]) is not None
    (verdict,) = cases.judge_all([call], "llvm-cpu")
    assert verdict == {"status": "random"}


def test_draws_near_the_float64_maximum_are_judged_by_distribution() -> None:
    """A sum or a square of such values overflows: their statistics must not be inf or NaN,
    which no window holds."""
    largest = torch.finfo(torch.float64).max
    draws = [
        torch.tensor([largest, -largest / 3, 1.0 + seed], dtype=torch.float64) for seed in range(4)
    ]
    assert cases.unlike_draws(draws[-1], draws[:-1]) is None
    assert cases.unlike_draws(torch.full((3,), largest, dtype=torch.float64), draws) is not None
    for scale in (1e-300, 1.0, 1e300):  # neither underflow nor overflow narrows the window
        seeded = [torch.Generator().manual_seed(seed) for seed in range(6)]
        draws = [torch.randn(100, generator=g, dtype=torch.float64) * scale for g in seeded]
        *others, highest = sorted(draws, key=lambda draw: float(draw.mean()))  # just outside
        assert cases.unlike_draws(highest, others) is None, scale


def test_samples_the_checker_once_died_on_are_judged() -> None:
    """A sparse input (no special values put in) and a conjugate view among the outputs."""
    (sparse,) = cases.samples("op:sparse.sampled_addmm", torch.float32)[6:7]
    assert cases.with_special_values(sparse, 6).leaves == sparse.leaves
    conjugate = torch.rand(3, dtype=torch.complex64).conj()  # a view, as ihfft2 returned
    assert conjugate.is_conj()
    assert cases.mismatch(conjugate, conjugate.resolve_conj()) is None


def test_eager_dying_on_a_signal_is_eager_error() -> None:
    """int64's minimum divided by -1, rounding toward zero: eager itself dies with SIGFPE."""
    worker = torch_sweep.Worker("llvm-cpu", special=True)
    try:
        (verdict,) = worker.run("op:div.trunc_rounding", "int64", [4], timeout=300)
    finally:
        worker.process.kill()
    assert verdict["status"] == "eager_error", verdict
    assert "SIGFPE" in verdict["detail"]


def test_uninitialized_values_are_judged_by_dtype_and_shape() -> None:
    """Values that change from run to run with no random op drawn are what `empty` returns,
    whatever memory held: only structure, dtype and shape can be compared."""
    runs = itertools.count()

    def leftover(x: torch.Tensor) -> torch.Tensor:  # stands in for memory that differs
        return torch.full_like(x, float(next(runs)))

    eager = cases.run_eager(_call(leftover, torch.rand(4, 4)))
    assert eager["undefined"] and eager["draws"] is None
    assert cases.compared(torch.zeros(4, 4), eager) == {"status": "pass"}
    assert cases.compared(torch.zeros(4, 4, dtype=torch.float64), eager)["status"] == "mismatch"
    assert cases.compared(torch.zeros(4, 3), eager)["status"] == "mismatch"
    plain = cases.run_eager(_call(torch.neg, torch.ones(4, 4)))
    assert not plain["undefined"]
    assert cases.compared(torch.zeros(4, 4), plain)["status"] == "mismatch"


def test_an_element_whose_eager_value_overflows_on_the_way_is_judged_by_float64() -> None:
    """A float32 sum whose partial sums pass the maximum: eager's order gives inf, float64
    gives 0.  Another order's 0 passes, its NaN is `order_dependent`; a wrong value where
    eager's is exact, or where NaN propagates, stays a mismatch."""
    biggest = torch.finfo(torch.float32).max
    eager = cases.run_eager(_call(torch.sum, torch.tensor([biggest, biggest, -biggest, -biggest])))
    assert float(eager["value"]) == float("inf") and float(eager["wide"]) == 0.0
    assert cases.compared(torch.tensor(0.0), eager)["status"] == "pass"
    assert cases.compared(torch.tensor(float("nan")), eager)["status"] == "order_dependent"
    assert cases.compared(torch.tensor(1.0), eager)["status"] == "mismatch"
    with_nan = cases.run_eager(_call(torch.sum, torch.tensor([1.0, float("nan"), biggest])))
    assert cases.compared(torch.tensor(float("inf")), with_nan)["status"] == "mismatch"
    exact = cases.run_eager(_call(torch.sum, torch.ones(6)))
    assert cases.compared(torch.tensor(5.0), exact)["status"] == "mismatch"
