"""What PyTorch defines and StableHLO's IEEE compares or f64 division say otherwise, held to
eager over special values in every dtype: NaN's place in sorts and in reductions that pick an
element, the unsigned order, and integer division beyond 2**53."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from shlo.api import compile_torch

FIXTURES = Path(__file__).resolve().parent / "fixtures"

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTEGERS = [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8]


class Ordering(torch.nn.Module):
    """Every op that orders or picks elements, along each dimension of each matrix (one per
    dtype, so that one compile serves every dtype)."""

    def forward(self, *matrices: torch.Tensor) -> tuple:
        return tuple(self.ordered(x) for x in matrices)

    def ordered(self, x: torch.Tensor) -> tuple:
        outputs = []
        for dim in (0, 1):
            outputs += [
                torch.sort(x, dim),
                torch.sort(x, dim, descending=True),
                torch.argsort(x, dim=dim, stable=True),
                torch.max(x, dim),
                torch.min(x, dim),
                torch.argmax(x, dim),
                torch.argmin(x, dim),
                torch.amax(x, dim),
                torch.amin(x, dim),
            ]
        return (*outputs, torch.msort(x), x.max(), x.min(), torch.maximum(x, x.roll(1, 0)))


def _specials(dtype: torch.dtype) -> torch.Tensor:
    """A 6x7 matrix of `dtype` holding its special values, ties and ordinary values, with rows
    of only NaN, of NaN and infinities, and of NaN beside the extremes."""
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        nan, inf = float("nan"), float("inf")
        rows = [
            [1.0, nan, 3.0, -1.0, nan, 0.0, -0.0],
            [nan, nan, nan, nan, nan, nan, nan],
            [-inf, inf, nan, -inf, inf, 2.0, 2.0],
            [info.max, -info.max, info.tiny, nan, -info.tiny, info.max, 0.5],
            [0.5, 0.25, 0.5, -0.0, 0.0, 0.25, 1.0],
            [2.0, 1.0, -3.0, 1.0, 2.0, -3.0, nan],
        ]
    else:
        info = torch.iinfo(dtype)
        low, high = info.min, info.max
        rows = [
            [low, high, 0, 1, high, low, 2],
            [high, high - 1, 127 if high > 127 else 1, 128 if high > 128 else 0, 3, 3, 0],
            [1, 1, 1, 1, 1, 1, 1],
            [0, low, high, 5, low, 6, high],
            [200 if high >= 200 else 20, 100, 255 if high >= 255 else 25, 3, 2, 1, 0],
            [low + 1, high - 2, 4, 4, low, 9, 8],
        ]
    return torch.tensor(rows, dtype=dtype)


def test_ordering_with_special_values_matches_eager_in_every_dtype() -> None:
    matrices = tuple(_specials(dtype) for dtype in FLOATS + INTEGERS)
    model = Ordering()
    got, want = compile_torch(model, matrices)(*matrices), model(*matrices)
    for dtype, one_got, one_want in zip(FLOATS + INTEGERS, got, want, strict=True):
        torch.testing.assert_close(
            one_got, one_want, equal_nan=True, rtol=0, atol=0, msg=lambda m, d=dtype: f"{d}: {m}"
        )


class Division(torch.nn.Module):
    def forward(self, *pairs: torch.Tensor) -> tuple:
        return tuple(self.divided(a, b) for a, b in zip(pairs[::2], pairs[1::2], strict=True))

    def divided(self, a: torch.Tensor, b: torch.Tensor) -> tuple:
        return (
            a // b,
            torch.div(a, b, rounding_mode="floor"),
            torch.div(a, b, rounding_mode="trunc"),
            a % b,
            torch.fmod(a, b),
            a // 7,
            a < b,
            a >= b,
            torch.maximum(a, b),
        )


def _dividends_and_divisors(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    info = torch.iinfo(dtype)
    a = torch.tensor(
        [info.max, info.min + 1, info.max - 3, 7, -7 if info.min else 7, 0, info.max // 3, 2**7 - 1]
    ).to(dtype)
    b = torch.tensor([3, 7, -2 if info.min else 2, -3 if info.min else 3, 2, 5, 10, 1]).to(dtype)
    if dtype == torch.int64:
        a[:3] = torch.tensor([2**62 + 12345, -(2**60) - 7, 2**53 + 1])
    return a, b


def test_integer_division_and_order_are_exact_in_every_integer_dtype() -> None:
    """Quotients of every sign, and beyond 2**53 for int64, where f64 is off by thousands."""
    pairs = tuple(t for dtype in INTEGERS for t in _dividends_and_divisors(dtype))
    model = Division()
    got, want = compile_torch(model, pairs)(*pairs), model(*pairs)
    torch.testing.assert_close(got, want, rtol=0, atol=0)


class PicksOfOne(torch.nn.Module):
    def forward(self, x: torch.Tensor, u: torch.Tensor) -> tuple:
        return (
            torch.argmax(x),
            torch.argmin(x, dim=0, keepdim=True),
            torch.max(x, 0),
            torch.min(x, -1, True),
            torch.argmax(u),
            torch.max(u, 0),
        )


def test_picks_along_a_dimension_of_a_0d_tensor_match_eager() -> None:
    """torch-mlir refused argmax, argmin, max.dim and min.dim of a 0-d tensor."""
    x, u = torch.tensor(3.5), torch.tensor(200, dtype=torch.uint8)
    model = PicksOfOne()
    torch.testing.assert_close(compile_torch(model, (x, u))(x, u), model(x, u), rtol=0, atol=0)


class ReducedScalars(torch.nn.Module):
    def forward(self, i: torch.Tensor, x: torch.Tensor) -> tuple:
        return (
            torch.sum(i, 0, keepdim=True),
            torch.amax(i, -1, True),
            torch.prod(i, 0, True),
            torch.cumsum(i, 0),
            torch.any(i, 0),
            torch.all(i, -1, True),
            torch.mean(x, 0, True),
            torch.logsumexp(x, 0, True),
            torch.softmax(x, 0),
            torch.var(x, 0, keepdim=True, correction=0),
        )


def test_reductions_of_a_0d_tensor_along_its_dimension_match_eager() -> None:
    """`sum(x, 0, keepdim=True)` of a 0-d tensor ended the process with SIGSEGV inside
    torch-mlir; prod, any, all and cumsum were refused."""
    i, x = torch.tensor(-7), torch.tensor(2.5)
    model = ReducedScalars()
    torch.testing.assert_close(compile_torch(model, (i, x))(i, x), model(i, x), rtol=0, atol=0)


class TopValues(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return torch.topk(x, 3), torch.topk(x, 2, dim=1, largest=False)


def test_top_k_of_unsigned_values_orders_them_unsigned() -> None:
    """On this uint8 sample of PyTorch's OpInfo for topk (with 0, 1 and 255 put in), the top
    3 of the row [6, 255, 3, 5, 5] came back as [6, 5, 5]: 255 was ranked as -1."""
    x = torch.from_numpy(np.load(FIXTURES / "topk_uint8_specials.npy"))
    model = TopValues()
    got, want = compile_torch(model, (x,))(x), model(x)
    # the values only: which of equal values' indices comes first is PyTorch's choice
    torch.testing.assert_close([g.values for g in got], [w.values for w in want], rtol=0, atol=0)


class Booleans(torch.nn.Module):
    def forward(self, x: torch.Tensor, index: torch.Tensor, src: torch.Tensor) -> tuple:
        return torch.scatter_add(x, 0, index, src), torch.amax(src, 1), torch.amin(src, 0)


def test_boolean_accumulation_and_order_match_eager() -> None:
    """On this boolean sample of PyTorch's OpInfo for scatter_add, True + True accumulated
    into False in 8 of 50 elements."""
    arrays = np.load(FIXTURES / "scatter_add_bool.npz")
    x, index, src = (torch.from_numpy(arrays[key]) for key in ("x", "index", "src"))
    model = Booleans()
    got, want = compile_torch(model, (x, index, src))(x, index, src), model(x, index, src)
    torch.testing.assert_close(got, want, rtol=0, atol=0)


class Trigonometry(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return torch.sin(x), torch.cos(x), torch.tan(x)


def test_sine_cosine_and_tan_of_any_argument_match_eager() -> None:
    """Arguments spread over every binade, both signs, up to the largest float: IREE's own
    range reduction gave NaN or infinity past about 1e19 and a wrong value from about 1e4
    (`shlo-trig-range-reduction`)."""
    generator = torch.Generator().manual_seed(0)
    for dtype, top in ((torch.float32, 127), (torch.float64, 1023)):
        exponents = torch.randint(-30, top, (2000,), generator=generator).to(dtype)
        signs = torch.where(torch.rand(2000, generator=generator) < 0.5, -1.0, 1.0).to(dtype)
        x = (1 + torch.rand(2000, generator=generator, dtype=dtype)) * 2**exponents * signs
        edges = [1.5707963, -1e-30, -0.0, 0.5, torch.finfo(dtype).max, math.inf, math.nan]
        x = torch.cat([x, torch.tensor(edges, dtype=dtype)])
        got = compile_torch(Trigonometry(), (x,))(x)
        # f64 functions run in f32 on llvm-cpu after the reduction: f32's precision
        for actual, expected in zip(got, Trigonometry()(x), strict=True):
            torch.testing.assert_close(actual, expected, rtol=1e-6, atol=1e-7, equal_nan=True)


class BooleanAdds(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor, index: torch.Tensor) -> tuple:
        return (
            a + b,
            torch.add(a, b),
            a.index_add(0, index, b),
            torch.sum(a, 1, dtype=torch.bool),
            a.sum(dtype=torch.bool),
        )


def test_boolean_adds_are_or_as_in_eager() -> None:
    """StableHLO's add of booleans is OR; IREE added them modulo 2 (True + True was False), in
    elementwise adds and in the bodies of reductions and scatters."""
    generator = torch.Generator().manual_seed(0)
    a = torch.rand(6, 5, generator=generator) > 0.4
    b = torch.rand(6, 5, generator=generator) > 0.4
    index = torch.tensor([0, 0, 1, 1, 1, 5])
    model = BooleanAdds()
    got, want = compile_torch(model, (a, b, index))(a, b, index), model(a, b, index)
    torch.testing.assert_close(got, want, rtol=0, atol=0)


class RightShifts(torch.nn.Module):
    def forward(self, *pairs: torch.Tensor) -> tuple:
        return tuple(
            (torch.bitwise_right_shift(x, n), x >> 3)
            for x, n in zip(pairs[::2], pairs[1::2], strict=True)
        )


def test_right_shifts_of_every_integer_dtype_match_eager() -> None:
    """Unsigned values have no sign bit to shift in; IREE shifted in their top bit
    (200 >> 1 of uint8 was 228)."""
    inputs = []
    for dtype in INTEGERS:
        x = _specials(dtype)
        width = torch.iinfo(dtype).bits
        inputs += [x, torch.arange(x.numel()).reshape(x.shape).remainder(width).to(dtype)]
    model = RightShifts()
    got, want = compile_torch(model, tuple(inputs))(*inputs), model(*inputs)
    torch.testing.assert_close(got, want, rtol=0, atol=0)


class Statistics(torch.nn.Module):
    def forward(self, empty: torch.Tensor, x: torch.Tensor) -> tuple:
        return (
            torch.var(empty),
            torch.std(empty, dim=0),
            torch.var_mean(empty, dim=0, keepdim=True),
            torch.logcumsumexp(x, 0),
            torch.logcumsumexp(x.flip(0), 0),
            torch.logcumsumexp(x.reshape(3, 4), 1),
            torch.atan2(-x.abs() * 0, -x.abs() - 1),
            torch.nn.functional.dropout(x, 1.0, training=True),
        )


def test_edge_cases_of_statistics_scans_atan2_and_dropout_match_eager() -> None:
    """The variance of no elements is NaN (torch-mlir gave -0.0); a running log-sum-exp of
    values past 88 is finite (torch-mlir's `log(cumsum(exp(x)))` gave inf); atan2 of -0 and a
    negative number is -pi (IREE gave pi); dropout with p = 1 is x * 0 (it was all NaN)."""
    inf, nan = math.inf, math.nan
    empty = torch.zeros(0, 5)
    x = torch.tensor([100.0, 101.0, -inf, 3.0, inf, 2.0, nan, 1.0, -500.0, 300.0, inf, -inf])
    expected = Statistics()(empty, x)
    actual = compile_torch(Statistics(), (empty, x))(empty, x)
    for got, want in zip(
        torch.utils._pytree.tree_leaves(actual),
        torch.utils._pytree.tree_leaves(expected),
        strict=True,
    ):
        torch.testing.assert_close(got, want, equal_nan=True)


class Difference(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a - b


def test_one_tensor_given_for_two_inputs_compiles_two_inputs() -> None:
    """torch.export traced `(x, x)` as one input: every later call computed `a - a`."""
    x = torch.ones(3)
    a, b = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([0.0, 0.0, 1.0])
    assert torch.equal(compile_torch(Difference(), (x, x))(a, b), a - b)
    assert torch.equal(compile_torch(Difference(), (x, x[None]))(a, b[None]), (a - b)[None])


class Dropped(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.dropout(x, 0.5, training=True)


def test_dropout_multiplies_by_its_noise_as_eager_does() -> None:
    """A dropped infinity or NaN is NaN in eager (x times a zero noise); torch-mlir's select
    gave 0.  Kept elements are doubled, and about half are dropped."""
    x = torch.tensor([float("inf"), float("nan"), 3.0]).repeat(2000)
    out = compile_torch(Dropped(), (x,))(x)
    infinities, nans, threes = out[0::3], out[1::3], out[2::3]
    assert bool(((infinities == float("inf")) | infinities.isnan()).all())
    assert bool(nans.isnan().all())
    assert set(threes.unique().tolist()) == {0.0, 6.0}
    assert 0.45 < float((infinities.isnan()).float().mean()) < 0.55


class Spreads(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return (
            torch.std(x, 1),
            torch.var(x, 1, correction=0, keepdim=True),
            *torch.std_mean(x, 0),
            *torch.var_mean(x, 1),
        )


def test_spreads_of_values_near_the_float_maximum_are_finite_where_eager_s_are() -> None:
    """The std of a row holding 3e38 is 1.5e38 in eager (a Welford pass); torch-mlir's squares
    (demoted to float32) overflowed to inf.  The mean beside it does not overflow either, and
    is NaN where an infinity comes before the last element reduced (inf - inf in Welford's
    running mean), the infinity where it is last."""
    torch.manual_seed(0)
    x = torch.randn(4, 5)
    x[0, 2] = torch.finfo(torch.float32).max
    x[1, 1] = math.inf
    x[2] = 1e-30
    x[3, 0] = -3e37
    x[0, 3] = x[3, 3] = 3e38
    x[3, 4] = -math.inf
    expected = Spreads()(x)
    actual = compile_torch(Spreads(), (x,))(x)
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(got, want, equal_nan=True)


class Comparisons(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple:
        constant = torch.full_like(x, 2.5)
        compared = (constant < 0, constant > 0, constant <= 0, constant >= 0, constant == 0)
        return (*compared, x // 2.5, torch.floor_divide(x, y), torch.fmod(x, y))


def test_comparisons_with_an_int_and_float_floor_division_match_eager() -> None:
    """`full_like(x, 2.5) < 0` was folded to True by torch-mlir; `//` of floats follows
    ATen's fmod-based rounding (`-inf // max` is NaN, `max // -inf` is -1), and a subnormal
    divisor reads as zero in fmod as in every other op."""
    inf, biggest = math.inf, torch.finfo(torch.float32).max
    x = torch.tensor([1.0, -1.0, 2.5, -7.0, -inf, biggest, inf, 3.0])
    y = torch.tensor([2.5, 2.5, -2.0, 2.0, biggest, -inf, biggest, 3e-39])
    read = y.clone()
    read[7] = 0.0  # the subnormal, as IREE's CPU code reads it
    expected = Comparisons()(x, read)
    actual = compile_torch(Comparisons(), (x, y))(x, y)
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(got, want, equal_nan=True)


class Norms(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return (
            torch.linalg.vector_norm(x, 1, dim=1),
            torch.linalg.vector_norm(x, 2, dim=1),
            torch.linalg.vector_norm(x, 1, dtype=torch.float64),
            torch.norm(x, dim=0, keepdim=True),
            torch.linalg.vector_norm(x[:, :1], 2, dim=1),  # of one element: |x|, never inf
            *(torch.linalg.vector_norm(x[:, :1], p, dim=1) for p in (6, -1, 0.5, math.inf, 0)),
        )


def test_one_and_two_norms_are_sums_not_powers() -> None:
    """The 1-norm of a row summing to the float maximum is that maximum, as ATen's sum of
    |x| gives it; torch-mlir's pow(sum, 1), computed by IREE as exp(log), gave inf.  A norm of
    one element is its |x| for every order but 0, as in ATen (not the power's overflow)."""
    x = torch.tensor([[torch.finfo(torch.float32).max, 1.0, 2.0], [1e-20, -2e-20, 0.0], [0.0] * 3])
    expected = Norms()(x)
    actual = compile_torch(Norms(), (x,))(x)
    assert torch.isfinite(actual[0][0])
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(got, want)


class Addr(torch.nn.Module):
    def forward(self, x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> tuple:
        return torch.addr(x, a, b, beta=0.6, alpha=0.2), torch.addr(x, a, b, beta=0, alpha=0.5)


def test_addr_multiplies_as_atens_kernel_does() -> None:
    """alpha * vec1 first, then vec2: the float maximum times -1.8 and 0.2 is finite (the outer
    product first overflowed); with beta 0 the NaN in x is not read."""
    biggest = torch.finfo(torch.float32).max
    x = torch.tensor([[1.0, math.nan], [2.0, -3.0]])
    a, b = torch.tensor([biggest, 2.0]), torch.tensor([-1.8, 0.5])
    expected = Addr()(x, a, b)
    actual = compile_torch(Addr(), (x, a, b))(x, a, b)
    assert torch.isfinite(expected[0][0, 0]) and not torch.isnan(expected[1]).any()
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(torch.as_tensor(got), want, equal_nan=True)


class SoftmaxBackward(torch.nn.Module):
    def forward(self, grad: torch.Tensor, output: torch.Tensor) -> tuple:
        backward = torch.ops.aten._softmax_backward_data
        return backward(grad, output, 0, grad.dtype), backward(grad, output, 1, grad.dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_softmax_backward_multiplies_the_difference(dtype: torch.dtype) -> None:
    """output * (grad - sum(grad * output)), as ATen's kernel (in float32 for float16): the
    float maximum times a finite difference from an infinite sum is an infinity, where
    PyTorch's output * grad - output * sum is inf - inf."""
    grad = torch.tensor([[-0.87, 2.0, 0.5], [-2.98, 1.0, 0.25], [-1.46, -3.0, 1.5]], dtype=dtype)
    output = torch.tensor([[0.05, 0.25, 0.5], [1e-4, 0.75, 0.125], [0.0, 0.5, 0.5]], dtype=dtype)
    output[2, 0] = torch.finfo(dtype).max
    expected = SoftmaxBackward()(grad, output)
    actual = compile_torch(SoftmaxBackward(), (grad, output))(grad, output)
    assert torch.isinf(expected[0][2, 0])
    for got, want in zip(actual, expected, strict=True):
        torch.testing.assert_close(torch.as_tensor(got), want, equal_nan=True, rtol=0, atol=0)
