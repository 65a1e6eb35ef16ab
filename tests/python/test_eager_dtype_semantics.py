"""Ops whose result depends on the dtype eager computes in or on its algorithm at special
values, compiled for llvm-cpu and compared with eager bit for bit, or within PyTorch's own
tolerances where the compiled algorithm is not eager's (special functions); ops torch-mlir
cannot lower among them (`median`, `put`, `diagonal_scatter`, `hypot`, special functions),
and the ones shlo does not compute refused by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

from shlo.api import compile_torch
from shlo.errors import AssertionFailed, FrontendError

NAN, INF = float("nan"), float("inf")
# poles, their neighbours, tiny values, the extremes, and values on both sides of 1/2
# (subnormals read as zero on IREE's CPU targets: docs/pytorch.md)
_SPECIAL = [0.0, -0.0, 1.0, 2.0, -1.0, -2.5, 0.5, 0.49, 1e-37, -1e-37, 1e-30, 1e30,
            3.4e38, -3.4e38, INF, -INF, NAN, 7.3, -7.3, 100.0, 0.999, -0.999, 1.0001]  # fmt: skip
# tolerances as PyTorch's own tests compare, per dtype
_TOLERANCE = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}


class _Model(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:
        return self.fn(*args)


def _assert_as_eager(
    fn: Callable[..., Any], *inputs: torch.Tensor, tolerance: bool = False
) -> None:
    """Compiled and eager results equal, or within `_TOLERANCE` of each other."""
    expected = fn(*inputs)
    actual = compile_torch(_Model(fn), inputs, target="llvm-cpu", device="local-sync")(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    actual = tuple(actual) if isinstance(actual, (list, tuple)) else (actual,)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        rtol, atol = _TOLERANCE.get(e.dtype, (0.0, 0.0)) if tolerance else (0.0, 0.0)
        torch.testing.assert_close(torch.as_tensor(a), e, rtol=rtol, atol=atol, equal_nan=True)


def test_copysign_converts_integers_to_float_before_taking_the_magnitude() -> None:
    """|int32 minimum| is 2**31 in float, not the int32 minimum again."""
    x = torch.tensor([-(2**31), 2**31 - 1, 0, -7], dtype=torch.int32)
    sign = torch.tensor([1.0, -1.0, -0.0, 2.0])
    _assert_as_eager(
        lambda a, b: (torch.copysign(a, b), torch.copysign(a, -1.0), torch.copysign(a, a)),
        x,
        sign,
    )


def test_all_and_any_of_integers_reduce_truth_values_in_eagers_dtype() -> None:
    """Nonzero values whose bits share nothing (1 and 2) are all true, and `any` is 1."""
    x = torch.tensor([[1, 2, 0], [2, 1, 255]], dtype=torch.uint8)
    _assert_as_eager(
        lambda a, b: (
            torch.all(a, 0), torch.any(a, 1), torch.all(a), torch.all(a, (0, 1)),
            torch.all(b, 0), torch.any(b, 1),
        ),
        x,
        x.to(torch.int32) * -3,
    )  # fmt: skip


def test_16_bit_averages_are_computed_in_f32_as_aten_does() -> None:
    """A window's or a row's sum past the f16 maximum, its average not."""
    x = torch.full((1, 2, 4, 4), 60000.0, dtype=torch.float16)
    x[0, 0, 0, 1] = 0.3
    _assert_as_eager(lambda a: (F.avg_pool2d(a, 2), F.avg_pool2d(a, 3, 1, 1), a.mean((2, 3))), x)


def test_bucketize_searches_as_aten_does_through_nan() -> None:
    """ATen's binary search puts NaN past every boundary, and a value past a NaN boundary."""
    values = torch.tensor([-3.0, 0.5, 1.0, 2.5, 7.0, NAN, INF, -0.0], dtype=torch.bfloat16)
    boundaries = torch.tensor([0.0, 1.0, 2.0, 3.0, NAN], dtype=torch.bfloat16)
    _assert_as_eager(
        lambda a, b: (torch.bucketize(a, b), torch.bucketize(a, b, right=True, out_int32=True)),
        values,
        boundaries,
    )


def test_searchsorted_searches_rows_as_aten_does() -> None:
    """Each row of a 2-d sequence (unsorted and NaN rows too) searched for its own values, from
    either side, through a sorter, and for a number."""
    sequence = torch.tensor([[0.0, 1.0, 2.0, 3.0], [3.0, 1.0, NAN, 0.5], [-INF, 0.0, 0.0, INF]])
    values = torch.tensor([[1.0, 2.5, NAN], [0.5, 3.0, -1.0], [0.0, INF, -INF]])
    sorter = sequence.argsort(-1)

    def fn(s: torch.Tensor, v: torch.Tensor, order: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.searchsorted(s, v),
            torch.searchsorted(s, v, side="right", out_int32=True),
            torch.searchsorted(s, v, sorter=order),
            torch.searchsorted(s[0], 1.5, right=True),
            torch.searchsorted(s[0], v),
        )

    _assert_as_eager(fn, sequence, values, sorter)


def test_fmod_and_remainder_are_exact_past_the_significand_and_by_infinity() -> None:
    """C's fmod: exact for any quotient, the dividend itself for an infinite divisor."""
    dividend = torch.tensor([3.0e38, -0.0, 5.0, -(2.0**31), 1e10, 7.5, NAN, INF])
    divisor = torch.tensor([-INF, -INF, INF, 2.5, 3.0, -2.0, 1.0, 2.0])

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return torch.fmod(a, b), torch.remainder(a, b), torch.fmod(a, 2.5)

    for dtype in (torch.float32, torch.bfloat16):
        _assert_as_eager(fn, dividend.to(dtype), divisor.to(dtype))
    # f64 only by infinity: its quotients past 2**53 stay torch-mlir's
    infinite = torch.where(divisor.isinf(), divisor, INF).double()
    _assert_as_eager(
        lambda a, b: (torch.fmod(a, b), torch.remainder(a, b)), dividend.double(), infinite
    )


def test_transposed_convolution_multiplies_weights_by_the_inputs_own_elements_only() -> None:
    """An infinite weight gives infinite outputs, not NaN from the zeros a stride spreads the
    input with; grouped, dilated, with output padding, in 1-d and 2-d."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randint(-4, 5, (2, 4, 3, 3), generator=generator).double()
    weight = torch.randint(-4, 5, (4, 3, 3, 2), generator=generator).double()
    weight[0, 1, 2, 0] = INF
    weight[3, 0, 0, 1] = -INF
    bias = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0, 2.0], dtype=torch.float64)
    _assert_as_eager(
        lambda a, w, b: (
            F.conv_transpose2d(a, w, b, stride=2, padding=1, output_padding=1, groups=2),
            F.conv_transpose2d(a, w, None, stride=(1, 3), dilation=(2, 1)),
            F.conv_transpose1d(a[:, :, 0], w[..., 0], b[:3], stride=3),
        ),
        x,
        weight,
        bias,
    )


_CONVOLUTIONS = {
    # small: ATen's slow im2col kernel, which multiplies the padding as IREE does (f32)
    "padded": (lambda a, w: F.conv2d(a, w, padding=1), (1, 2, 5, 5), (2, 2, 3, 3)),
    # strided and grouped: oneDNN, which skips the padding
    "strided": (
        lambda a, w: F.conv2d(a, w, stride=(3, 2), padding=2, groups=2),
        (2, 4, 8, 8),
        (2, 2, 3, 3),
    ),
    "transposed": (lambda a, w: F.conv_transpose2d(a, w, stride=2), (1, 2, 5, 5), (2, 2, 3, 3)),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(_CONVOLUTIONS))
def test_an_infinite_weight_where_a_convolution_pads_matches_eager_or_is_refused(
    name: str, dtype: torch.dtype
) -> None:
    """Outside f64, eager's kernel for a convolution (ATen's choice by shapes, dtype and host)
    either multiplies the padding's zeros by the weights, as the compiled convolution does
    (NaN for an infinite weight), or skips them (oneDNN; col2im for a transposed one): then a
    padded or transposed convolution with an infinite or NaN weight is refused at run time.
    Either way no number differs from eager's; finite weights always compute."""
    fn, x_shape, w_shape = _CONVOLUTIONS[name]
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(x_shape, generator=generator).to(dtype)
    weight = torch.randn(w_shape, generator=generator).to(dtype)
    model = _Model(fn)
    compiled = compile_torch(model, (x, weight), target="llvm-cpu", device="local-sync")
    close = {"rtol": 0.05, "atol": 0.05} if dtype != torch.float32 else {}
    torch.testing.assert_close(compiled(x, weight), model(x, weight), **close)
    refused = 0
    for special in (INF, -INF, NAN):
        bad = weight.clone()
        bad[1, 0, 2, 1] = special
        try:
            got = compiled(x, bad)
        except AssertionFailed as error:
            assert "infinite or NaN weight: the kernel PyTorch picks" in str(error)
            refused += 1
            continue
        torch.testing.assert_close(got, model(x, bad), equal_nan=True, **close)
    if dtype == torch.float32:  # ATen's choices on every x86 host
        assert refused == (0 if name == "padded" else 3)


def test_a_modules_infinite_weight_where_its_convolution_pads_is_refused_when_compiled() -> None:
    """A module's weights are fixed when it is compiled, so the check is decided then: a
    finite module compiles without it (and can be bundled), an infinite weight is refused."""
    conv = torch.nn.Conv2d(4, 2, 3, stride=(3, 2), padding=2, groups=2).eval()
    x = torch.randn(2, 4, 8, 8, generator=torch.Generator().manual_seed(0))
    compiled = compile_torch(conv, (x,), target="llvm-cpu", device="local-sync")
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), conv(x))
        conv.weight[1, 0, 2, 1] = INF
    with pytest.raises(FrontendError, match="weights fail its check: a convolution with padding"):
        compile_torch(conv, (x,), target="llvm-cpu", device="local-sync")


def test_a_convolution_without_padding_computes_an_infinite_weight() -> None:
    """No zeros to meet: every kernel multiplies the same elements."""
    x = torch.randn(1, 2, 5, 5, generator=torch.Generator().manual_seed(0))
    weight = torch.randn(2, 2, 3, 3, generator=torch.Generator().manual_seed(1))
    weight[0, 1, 1, 1] = INF
    _assert_as_eager(F.conv2d, x, weight, tolerance=True)


@pytest.mark.parametrize(
    "fn",
    [
        torch.fft.rfft,
        lambda a: torch.stft(a[0], 4, window=torch.ones(4), center=False, return_complex=True),
    ],
    ids=["rfft", "stft"],
)
def test_an_fft_that_meets_infinity_or_nan_is_refused_at_run_time(
    fn: Callable[[torch.Tensor], torch.Tensor],
) -> None:
    """Eager's FFT keeps the first bin's imaginary part 0 and places infinities by its
    butterflies, which torch-mlir's product with the DFT matrix does not follow: `rfft` (and
    `stft`, which PyTorch writes with it) computes finite spectra and refuses the others,
    from an infinite, NaN or overflowing input."""
    x = torch.randn(2, 16, generator=torch.Generator().manual_seed(0))
    model = _Model(fn)
    compiled = compile_torch(model, (x,), target="llvm-cpu", device="local-sync")
    torch.testing.assert_close(torch.as_tensor(compiled(x)), model(x), rtol=1e-5, atol=1e-5)
    for special in (INF, NAN, 3.4e38):
        bad = x.clone()
        bad[0, 5] = bad[0, 6] = special
        with pytest.raises(AssertionFailed, match="fft.rfft gave an infinite or NaN value"):
            compiled(bad)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_gamma_functions_match_eager_at_poles_and_special_values(dtype: torch.dtype) -> None:
    """lgamma below the type's epsilon is -log|x| (CHLO's f64 reflection, its sine computed in
    f32, gave inf), digamma of +-0 is -+inf (CHLO's is NaN), trigamma is ATen's own series
    (finite at -1, where the sine of pi*x is not quite 0), and the multivariate lgamma sums
    lgammas."""
    x = torch.tensor(_SPECIAL, dtype=dtype)
    # in float64 too small for a float32 sine (the f64 one IREE computes in f32)
    below_f32 = [1e-45, -1e-300] if dtype == torch.float64 else []
    tiny = torch.tensor([1e-30, -1e-35, 2e-38, -3e-38, *below_f32], dtype=dtype)

    def fn(v: torch.Tensor, small: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.lgamma(small),
            torch.lgamma(v),
            torch.digamma(v),
            torch.polygamma(0, v),
            torch.polygamma(1, v),
            torch.special.multigammaln(v.abs() + 2, 3),
        )

    _assert_as_eager(fn, x, tiny, tolerance=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_erfinv_i1e_and_nextafter_match_eager(dtype: torch.dtype) -> None:
    """erfinv is +-inf at +-1 and NaN past them (0.999 and 0.49 among the values);
    nextafter steps one representable value, from and to +-0, the extremes and the
    infinities."""
    x = torch.tensor(_SPECIAL, dtype=dtype)
    y = torch.roll(x, 3)

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (
            torch.erfinv(a),
            torch.special.i1e(a),
            torch.nextafter(a, b),
        )

    _assert_as_eager(fn, x, y, tolerance=True)


def test_integer_inputs_are_promoted_as_eager_promotes_them() -> None:
    """lgamma and digamma of int64 are float32; digamma of integer 0 is -inf."""
    n = torch.tensor([0, 1, 2, -3, 10], dtype=torch.int64)
    _assert_as_eager(
        lambda v: (torch.lgamma(v), torch.digamma(v), torch.polygamma(1, v)), n, tolerance=True
    )


@pytest.mark.parametrize(
    "fn",
    [lambda v: torch.polygamma(2, v), lambda v: torch.special.zeta(v + 1, v)],
    ids=["polygamma-2", "zeta"],
)
def test_zeta_and_higher_polygammas_are_refused_by_name(fn: Callable[..., Any]) -> None:
    """CHLO's Hurwitz zeta is wrong for a negative q (zeta(2, -8.5) came out 6.79, not 9.76):
    those ops are refused, not computed."""
    x = torch.tensor([0.5, 2.0, -8.5])
    with pytest.raises(
        FrontendError, match="cannot lower these ops(.|\n)*(special_zeta|polygamma)"
    ):
        compile_torch(_Model(fn), (x,))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_hypot_overflows_only_where_the_result_does(dtype: torch.dtype) -> None:
    """hypot(3e38, 3e38) is finite in float64 and inf in float32, as C's; an infinity wins
    over a NaN."""
    big = torch.finfo(dtype).max / 2
    a = torch.tensor([3.0, big, INF, NAN, -0.0, 1e-45, -INF, 1e-300], dtype=dtype)
    b = torch.tensor([4.0, big, NAN, 1.0, 0.0, 1e-45, 2.0, 1e-300], dtype=dtype)
    _assert_as_eager(lambda x, y: (torch.hypot(x, y), torch.hypot(x, y[2:3])), a, b, tolerance=True)


def test_diagonal_scatter_places_every_offset_and_dim_pair() -> None:
    """Above, on and below the diagonal, between dims in either order, in a batch."""
    x = torch.arange(60, dtype=torch.float32).reshape(3, 4, 5)

    def fn(t: torch.Tensor, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        return (
            torch.diagonal_scatter(t, a, 0, 1, 2),
            torch.diagonal_scatter(t, b, 1, 2, 0),
            torch.diagonal_scatter(t, c, -1, 0, 1),
        )

    a = -torch.arange(12, dtype=torch.float32).reshape(3, 4)
    b = torch.full((4, 2), NAN)
    c = -torch.ones(5, 2)
    _assert_as_eager(fn, x, a, b, c)


def test_put_counts_negative_indices_from_the_end_and_accumulates() -> None:
    x = torch.zeros(3, 4)
    index = torch.tensor([[0, -1], [5, -12]])
    source = torch.tensor([[1.0, 2.0], [3.0, 4.0]])

    def fn(t: torch.Tensor, i: torch.Tensor, s: torch.Tensor) -> tuple:
        return t.put(i, s), t.put(i.flip(0), s, accumulate=True), t.put(i % 2, s, accumulate=True)

    _assert_as_eager(fn, x, index, source)


def test_put_past_the_end_stops_the_call_as_eager_does() -> None:
    x = torch.zeros(6)
    model = _Model(lambda t, i: t.put(i, torch.ones(2)))
    compiled = compile_torch(model, (x, torch.tensor([0, 5])))
    with pytest.raises(AssertionFailed, match="out of range"):
        compiled(x, torch.tensor([0, 6]))


def test_median_and_nanmedian_pick_atens_value_and_index() -> None:
    """The lower middle, ties broken by index (+-0 are equal), the first NaN for `median` of a
    slice holding one, the middle of the others for `nanmedian`; of a slice of an input too
    (IREE failed to compile a sort of one)."""
    x = torch.tensor(
        [[1.0, 2.0, 2.0, 0.0], [NAN, 3.0, NAN, 1.0], [-0.0, 0.0, 0.0, -0.0], [5.0, 5.0, 1.0, 1.0]]
    )

    def fn(t: torch.Tensor) -> tuple:
        odd = t[:, :3]
        return (
            torch.median(t), torch.nanmedian(t), torch.median(odd[0]),
            *torch.median(t, 1), *torch.nanmedian(t, 1),
            *torch.median(t, 0, keepdim=True), *torch.nanmedian(odd, -1, True),
        )  # fmt: skip

    _assert_as_eager(fn, x)


def test_nonzero_static_pads_and_truncates_in_row_major_order() -> None:
    """NaN is nonzero; fewer nonzero elements than `size` are padded with the fill value,
    more are cut; a 0-d tensor has no coordinates."""
    x = torch.tensor([[[0.0, 1.0], [2.0, -0.0], [NAN, 3.0]]])
    flags = torch.tensor([True, False, True])

    def fn(t: torch.Tensor, b: torch.Tensor) -> tuple:
        return (
            torch.nonzero_static(t, size=6),
            torch.nonzero_static(t, size=2, fill_value=7),
            torch.nonzero_static(b, size=4),
            torch.nonzero_static(t[0, 0, 1], size=2),
        )

    _assert_as_eager(fn, x, flags)


_REDUCTIONS = ("max", "min", "sum", "mean", "prod")


def test_segment_reduce_reduces_as_atens_kernel() -> None:
    """Every reduction by lengths and by offsets: empty segments at their identity (-inf for
    max, NaN for a mean, `initial` where given), NaN kept by max and min, positions outside
    the offsets left out."""
    data = torch.tensor([[1.0, 2.0, 3.0, 4.0, NAN, 6.0], [1.0, -2.0, 3.0, 4.0, 5.0, 0.5]])
    lengths = torch.tensor([[2, 0, 4], [3, 3, 0]])
    offsets = torch.tensor([[1, 2, 2, 5], [0, 3, 6, 6]])

    def fn(d: torch.Tensor, n: torch.Tensor, o: torch.Tensor) -> tuple:
        by_lengths = [torch.segment_reduce(d, r, lengths=n, axis=1) for r in _REDUCTIONS]
        by_offsets = [torch.segment_reduce(d, r, offsets=o, axis=1) for r in _REDUCTIONS]
        started = torch.segment_reduce(d, "mean", lengths=n, axis=1, initial=2.0)
        return (*by_lengths, *by_offsets, started)

    _assert_as_eager(fn, data, lengths, offsets, tolerance=True)


def test_segment_reduce_checks_its_lengths_at_the_call() -> None:
    model = _Model(lambda d, n: torch.segment_reduce(d, "sum", lengths=n))
    compiled = compile_torch(model, (torch.ones(6), torch.tensor([2, 4])))
    with pytest.raises(AssertionFailed, match="lengths contains negative value"):
        compiled(torch.ones(6), torch.tensor([-1, 7]))
    with pytest.raises(AssertionFailed, match="sum to data.size"):
        compiled(torch.ones(6), torch.tensor([2, 3]))


def test_histc_bins_as_atens_kernel() -> None:
    """Given bounds (values outside them and NaN left out, the last bin closed), the values'
    own extremes, equal extremes widened by 1 or by one float (3e38), and no values at all."""
    x = torch.tensor([0.0, 1.0, 2.0, 3.0, 4.0, NAN, -0.0, 4.0000001, 3.99999, -2.0])

    def fn(t: torch.Tensor, same: torch.Tensor, empty: torch.Tensor) -> tuple:
        return (
            torch.histc(t, 4, 0, 4), torch.histc(t[:5], 3), torch.histc(t, 5, -1.5, 2.5),
            torch.histc(same, 4), torch.histc(same * 3e38, 2), torch.histc(empty, 3),
        )  # fmt: skip

    _assert_as_eager(fn, x, torch.ones(3), torch.zeros(0))


def test_histc_of_nan_extremes_stops_the_call() -> None:
    compiled = compile_torch(_Model(lambda t: torch.histc(t, 3)), (torch.ones(4),))
    with pytest.raises(AssertionFailed, match="torch.histc: range of"):
        compiled(torch.tensor([1.0, NAN, 2.0, 3.0]))


def test_histogram_bins_weighs_and_normalizes_as_atens_kernel() -> None:
    """By a count (over the values' extremes, over a range, over equal extremes widened by
    1/2, over nothing) and by edges, weighted, as a density; edges as ATen's linspace."""
    x = torch.tensor([1.0, 2.0, 2.0, 3.0, 9.0, 7.5, -1.0, NAN])

    def fn(t: torch.Tensor, edges: torch.Tensor, weight: torch.Tensor) -> tuple:
        return (
            *torch.histogram(t[:7], 4), *torch.histogram(t[:7], 20),
            *torch.histogram(t, edges, weight=weight, density=True),
            *torch.histogram(t, 3, range=(0.0, 5.0), density=True),
            *torch.histogram(t[1:3], 2), *torch.histogram(t[:0], 2),
        )  # fmt: skip

    _assert_as_eager(fn, x, torch.tensor([0.0, 2.0, 3.0, 10.0]), torch.arange(8.0), tolerance=True)


def test_histogramdd_bins_every_dim_as_atens_kernel() -> None:
    """Points along the last dim: a count for all dims, a count per dim over a range (points
    outside or with NaN left out), edges per dim, weighted, as a density."""
    points = torch.tensor(
        [[0.1, 0.2], [0.5, 0.5], [1.0, 0.0], [0.3, NAN], [-0.0, 0.9], [0.7, 1.5], [0.2, 0.2]]
    )

    def fn(p: torch.Tensor, weight: torch.Tensor) -> tuple:
        clean = p[[0, 1, 2, 4, 6]]
        found = (
            torch.histogramdd(clean, bins=3),
            torch.histogramdd(p, bins=[2, 4], range=[0.0, 1.0, 0.0, 1.0], weight=weight),
            torch.histogramdd(
                p, bins=[torch.tensor([0.0, 0.25, 1.0]), torch.tensor([0.0, 0.5, 2.0])],
                density=True,
            ),
            torch.histogramdd(clean.repeat(1, 2)[:, :3], bins=[2, 1, 3], density=True),
        )  # fmt: skip
        return tuple(t for hist, edges in found for t in (hist, *edges))

    _assert_as_eager(fn, points, torch.arange(7.0), tolerance=True)


def test_indexing_ops_of_0d_tensors_take_them_as_one_element() -> None:
    """scatter, scatter_add, gather and index_add of 0-d tensors (torch-mlir refused the first
    four and crashed on the last), a 0-d input gathered by a 1-element index too."""
    x, value = torch.tensor(2.0), torch.tensor(5.0)
    index = torch.tensor(0)

    def fn(t: torch.Tensor, i: torch.Tensor, v: torch.Tensor) -> tuple:
        return (
            torch.scatter_add(t, 0, i, v), torch.scatter(t, 0, i, v), torch.scatter(t, 0, i, 3.0),
            torch.gather(t, 0, i), torch.gather(t, 0, i.reshape(1)), t.index_add(0, i, v),
        )  # fmt: skip

    _assert_as_eager(fn, x, index, value)


def test_a_float_tensor_equals_itself_except_where_it_is_nan() -> None:
    """torch-mlir folded `x == x` to true everywhere (also once equal views were merged)."""
    x = torch.tensor([3.0, NAN, -0.0, INF, -INF, 1.0, NAN])
    z = torch.complex(x, torch.tensor([0.0, 1.0, NAN, 0.0, 2.0, NAN, 0.0]))
    _assert_as_eager(
        lambda a, c: (
            a == a, torch.eq(a, a.clone()), torch.isclose(a, a), (a == a).all(),
            a.view(7) == a.reshape(7), c == c, a.half() == a.half(), a != a,
        ),
        x,
        z,
    )  # fmt: skip
