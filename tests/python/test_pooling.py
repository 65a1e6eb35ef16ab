"""Max and average pooling match eager over the whole grid of their options: 1-, 2- and 3-d,
kernel, stride, padding, dilation, ceil mode (with and without an extra window),
`count_include_pad` and `divisor_override`, on inputs holding NaN and infinities.  Each rank's
grid is one module (one compile), every configuration one of its outputs."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)

from shlo.api import compile_torch, import_model

MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
SIZE = {1: 13, 2: 9, 3: 7}  # odd sizes, so that ceil mode adds a window for stride 2 and 3


def _grid(rank: int) -> list[tuple[str, Callable[[torch.Tensor], torch.Tensor]]]:
    """(name, pooling) for every option set valid on a `SIZE[rank]`-wide input."""
    chosen = []
    options = itertools.product((2, 3), (1, 2, 3), (0, 1), (False, True))
    for kernel, stride, padding, ceil in options:
        if 2 * padding > kernel:
            continue  # ATen refuses padding over half the kernel
        common = {"kernel_size": kernel, "stride": stride, "padding": padding, "ceil_mode": ceil}
        name = f"k{kernel}s{stride}p{padding}c{ceil:d}"
        for dilation in (1, 2):
            chosen.append((f"max {name}d{dilation}", _call(MAX[rank], common, dilation=dilation)))
        for include, override in ((True, None), (False, None), (True, 3)):
            averaging: dict = {"count_include_pad": include}
            if override is not None:
                if rank == 1:
                    continue  # avg_pool1d has no divisor_override
                averaging["divisor_override"] = override
            pool = _call(AVG[rank], common, **averaging)
            chosen.append((f"avg {name}i{include:d}o{override}", pool))
    return chosen


def _call(pool: Callable, common: dict, **options: object) -> Callable:
    return lambda x: pool(x, **common, **options)


class Grid(torch.nn.Module):
    def __init__(self, rank: int) -> None:
        super().__init__()
        self.pools = [pool for _, pool in _grid(rank)]

    def forward(self, x: torch.Tensor) -> tuple:
        return tuple(pool(x) for pool in self.pools)


def _input(rank: int) -> torch.Tensor:
    torch.manual_seed(rank)
    x = torch.randn(2, 3, *[SIZE[rank]] * rank)
    flat = x.view(-1)
    flat[torch.randperm(flat.numel())[:6]] = torch.tensor(
        [float("nan"), float("inf"), -float("inf"), -float("inf"), -0.0, 3e38]
    )
    return x


# Every option set in 2d by default; 1d and 3d (the same lowering, other ranks) are slow.
@pytest.mark.parametrize(
    "rank", [pytest.param(1, marks=pytest.mark.slow), 2, pytest.param(3, marks=pytest.mark.slow)]
)
def test_pooling_grid_matches_eager(rank: int) -> None:
    x = _input(rank)
    model = Grid(rank)
    compiled = compile_torch(model, (x,))
    names = [name for name, _ in _grid(rank)]
    wrong = []
    for name, got, want in zip(names, compiled(x), model(x), strict=True):
        if got.shape != want.shape or not torch.allclose(got, want, 1e-5, 1e-6, equal_nan=True):
            wrong.append(name)
    assert not wrong, f"{len(wrong)} of {len(names)} pooling configurations differ: {wrong}"


class Reported(torch.nn.Module):
    """SqueezeNet's and GoogLeNet's pooling, as reported: silently wrong (the max pools), or
    refused inside torch-mlir (the average pool)."""

    def __init__(self) -> None:
        super().__init__()
        self.first = torch.nn.MaxPool2d(2, 2, ceil_mode=True)
        self.second = torch.nn.MaxPool2d(3, 2, padding=1, ceil_mode=True)
        self.third = torch.nn.AvgPool2d(3, 2, ceil_mode=True, count_include_pad=False)

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        return self.first(a), self.second(b), self.third(c)


def test_the_reported_pooling_cases() -> None:
    inputs = (torch.randn(1, 4, 15, 15), torch.randn(1, 4, 20, 20), torch.randn(1, 4, 16, 16))
    model = Reported()
    torch.testing.assert_close(compile_torch(model, inputs)(*inputs), model(*inputs))


class Adaptive(torch.nn.Module):
    """Adaptive max pooling in 1-3d over windows that do and do not divide the input, global,
    and one window an element; values and indices."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        return (
            F.adaptive_max_pool1d(a, 5, return_indices=True),
            F.adaptive_max_pool2d(b, (5, 7), return_indices=True),
            F.adaptive_max_pool2d(b[0], (3, 4), return_indices=True),
            F.adaptive_max_pool2d(b, (4, 11), return_indices=True),
            F.adaptive_max_pool2d(b, 1, return_indices=True),
            F.adaptive_max_pool2d(b, (16, 11), return_indices=True),
            F.adaptive_max_pool3d(c, (2, 3, 4), return_indices=True),
        )


def test_adaptive_max_pooling_picks_as_aten_does() -> None:
    """Eager's kernel takes the last NaN of a window and the first of equal maxima; uneven
    windows failed to import, and PyTorch's own decomposition of global pooling takes the
    first NaN."""
    torch.manual_seed(0)
    a, b, c = torch.randn(2, 3, 13), torch.randn(2, 3, 16, 11), torch.randn(1, 2, 5, 7, 9)
    a.view(-1)[5] = float("nan")
    b.view(-1)[[3, 50, 51, 52]] = float("nan")
    b.view(-1)[[60, 61]] = 5.0
    model = Adaptive()
    got = compile_torch(model, (a, b, c))(a, b, c)
    torch.testing.assert_close(got, model(a, b, c), equal_nan=True, rtol=0, atol=0)


class DefaultStride(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return (
            F.max_pool2d(x, 2, return_indices=True),
            F.max_pool1d(x[0], 3, return_indices=True),
        )


def test_max_pooling_with_indices_takes_the_kernel_as_its_default_stride() -> None:
    """torch-mlir read the empty stride as 1 when the indices are asked for (an import
    failure), and its windows that picked indices dropped NaN (5 for [nan, 1, nan, 5]); one
    NaN a window here, whose index eager and shlo agree on."""
    x = torch.randn(2, 6, 8, 10)
    x[0, 0, 0, 0] = x[1, 2, 4, 5] = x[0, 3, 7, 9] = float("nan")
    model = DefaultStride()
    got = compile_torch(model, (x,))(x)
    torch.testing.assert_close(got, model(x), rtol=0, atol=0, equal_nan=True)


class WithIndices3d(torch.nn.Module):
    """3-d max pooling with indices, which torch-mlir has no lowering for, in each option."""

    OPTIONS = (
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1},
        {"kernel_size": 2, "stride": 1, "dilation": 2},
        {"kernel_size": 2, "stride": 2, "ceil_mode": True},
    )

    def forward(self, x: torch.Tensor) -> tuple:
        return tuple(F.max_pool3d(x, **o, return_indices=True) for o in self.OPTIONS)


def test_3d_max_pooling_with_indices_matches_eager() -> None:
    x = _input(3)[:1, :2, :5, :5, :5].contiguous()
    model = WithIndices3d()
    torch.testing.assert_close(compile_torch(model, (x,))(x), model(x), equal_nan=True)


class PickedIndices(torch.nn.Module):
    """2-d and 3-d max pooling with indices over padding, dilation and ceil mode's last
    window, each path shlo has (stride given or not, ceil mode adding a window or not)."""

    OPTIONS = (
        {"kernel_size": 2, "stride": 2, "padding": 1},
        {"kernel_size": 3, "stride": 1, "padding": 1, "dilation": 2},
        {"kernel_size": (3, 2), "stride": 2, "padding": 1, "ceil_mode": True},
        {"kernel_size": 2, "padding": 1, "ceil_mode": True},
    )

    def forward(self, x: torch.Tensor) -> tuple:
        planes = torch.stack([x, x.flip(-1), x.roll(1, -2)], 2)
        return tuple(
            (
                F.max_pool2d(x, **o, return_indices=True),
                F.max_pool3d(
                    planes, **{**o, "kernel_size": _box(o["kernel_size"])}, return_indices=True
                ),
            )
            for o in self.OPTIONS
        )


def _box(kernel: int | tuple[int, int]) -> int | tuple[int, int, int]:
    """A 2-d pool's kernel for a 3-d one: 2 planes deep where it is a tuple."""
    return kernel if isinstance(kernel, int) else (2, *kernel)


def test_max_pooling_indices_pick_as_aten_does() -> None:
    """ATen's kernels take a window's last NaN and, in a window of -inf alone, its first
    position inside the input; torch-mlir's lowering and PyTorch's decomposition took the first
    NaN, and pointed a window of -inf at its padding (an index outside the plane, or negative).
    """
    torch.manual_seed(0)
    x = torch.randn(1, 2, 6, 7)
    x[0, 0, :2, :2] = x[0, 0, 5, 5:] = -math.inf
    x[0, 0, 2, 0] = x[0, 0, 3, 1] = x[0, 1, 0, :] = math.nan
    model = PickedIndices()
    got = compile_torch(model, (x,))(x)
    torch.testing.assert_close(got, model(x), equal_nan=True, rtol=0, atol=0)


class MaxValues(torch.nn.Module):
    """Max pooling without indices in 1-3d, with and without ceil mode (a last window that
    runs past the end), padding and dilation."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        return (
            F.max_pool1d(a, 3, 2, 1),
            F.max_pool1d(a, 2, 3, ceil_mode=True),
            F.max_pool2d(b, 3, 2, 1, ceil_mode=True),
            F.max_pool2d(b, 2, 2, 0, 2, ceil_mode=True),
            F.max_pool3d(c, 3, 2, 1),
            F.max_pool3d(c, 3, 2, 1, ceil_mode=True),
            F.max_pool3d(c, (2, 3, 2), (3, 1, 2), (1, 1, 0), (1, 2, 1), ceil_mode=True),
            F.max_pool3d(c[0], 2),
        )


def test_max_pooling_values_match_eager() -> None:
    """A NaN in a window gives NaN, infinities are kept, and ceil mode's last window is
    there where it starts inside the input."""
    a, b, c = _input(1)[:, :, :12], _input(2)[:, :, :8, :8], _input(3)
    model = MaxValues()
    got = compile_torch(model, (a, b, c))(a, b, c)
    torch.testing.assert_close(got, model(a, b, c), equal_nan=True, rtol=0, atol=0)


class IntegerMax(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        return F.max_pool3d(x, 3, 2, 1, ceil_mode=True), F.max_pool2d(x[0], 2, 3, ceil_mode=True)


def test_max_pooling_of_integers_matches_eager() -> None:
    """Ceil mode's last window is padded with the dtype's lowest value, not -inf."""
    x = torch.randint(-(2**31), 2**31 - 1, (1, 2, 7, 7, 7), dtype=torch.int32)
    x[..., -1] = -(2**31)  # the last window of the last dimension holds the lowest value only
    model = IntegerMax()
    torch.testing.assert_close(compile_torch(model, (x,))(x), model(x), rtol=0, atol=0)


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("ceil_mode", [False, True])
def test_max_pooling_without_indices_is_a_reduce_window(rank: int, ceil_mode: bool) -> None:
    """The indices' path (a gather of every window, which IREE compiles into intermediates
    many times the input) is left out when the indices are unused."""
    pool = (torch.nn.MaxPool1d, torch.nn.MaxPool2d, torch.nn.MaxPool3d)[rank - 1]
    x = torch.randn(1, 2, *[10] * rank)
    text = str(import_model(pool(3, 2, padding=1, ceil_mode=ceil_mode), (x,)).module)
    assert "stablehlo.reduce_window" in text
    assert "gather" not in text


class AdaptiveAverage(torch.nn.Module):
    """Adaptive average pooling in 1-3d over windows that do and do not divide the input,
    and global."""

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> tuple:
        return (
            F.adaptive_avg_pool1d(a, 5),
            F.adaptive_avg_pool1d(a, 1),
            F.adaptive_avg_pool2d(b, (5, 3)),
            F.adaptive_avg_pool2d(b, 1),
            F.adaptive_avg_pool3d(c, (2, 3, 4)),
            F.adaptive_avg_pool3d(c, (3, 1, 7)),
            F.adaptive_avg_pool3d(c[0], (4, 4, 2)),
            F.adaptive_avg_pool3d(c, 1),
        )


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_adaptive_average_pooling_matches_eager(dtype: torch.dtype) -> None:
    """ATen's windows (start floor(i*n/out), end ceil((i+1)*n/out)); 3-d pooling, which
    torch-mlir has no lowering for, sums small windows in ATen's order and is separable over
    larger ones.  16-bit floats are averaged in f32 and
    rounded once: ATen's 3-d CPU kernel sums in f16 (cancellation there costs digits), so f16
    is held to eager's f32 average, rounded."""
    torch.manual_seed(0)
    a, b, c = torch.randn(2, 3, 13), torch.randn(2, 3, 11, 7), torch.randn(1, 2, 5, 7, 9)
    args = tuple(t.to(dtype) for t in (a, b, c))
    model = AdaptiveAverage()
    want = [t.to(dtype) for t in model(*(t.float() for t in args))]
    torch.testing.assert_close(list(compile_torch(model, args)(*args)), want)


class Area(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.interpolate(x, size=(5, 5, 5), mode="area")


def test_a_small_3d_adaptive_window_is_summed_in_atens_order() -> None:
    """A window holding the float maximum and its negative absorbs a finite term or not by the
    order of its sum: ATen adds element after element over depth, height and width, and
    divides by each extent in turn; a separable average (planes first) gave 0 where eager
    gives -0.625 here, and was an ulp off elsewhere."""
    biggest = torch.finfo(torch.float32).max
    x = torch.randn(1, 2, 4, 4, 4, generator=torch.Generator().manual_seed(0))
    x[0, 0, 2, 0, 2], x[0, 0, 2, 0, 3], x[0, 0, 3, 0, 2], x[0, 0, 3, 0, 3] = (
        -4.5, biggest, -biggest, -2.5,
    )  # fmt: skip
    expected = Area()(x)
    assert expected[0, 0, 3, 0, 3] == -0.625
    actual = torch.as_tensor(compile_torch(Area(), (x,))(x))
    assert torch.equal(actual, expected)


WEIGHT_1D, WEIGHT_2D, WEIGHT_3D = (
    torch.randn(3, 2, 3),
    torch.randn(3, 2, 3, 3),
    torch.randn(3, 2, 2, 2, 2),
)
SHORT = {
    "max_pool2d": lambda x: F.max_pool2d(x, 3, padding=1),
    "max_pool2d_indices": lambda x: F.max_pool2d(x, 3, padding=1, return_indices=True),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 2),
    "avg_pool2d_padded": lambda x: F.avg_pool2d(x, 3, padding=1),
    "lp_pool2d": lambda x: F.lp_pool2d(x, 2, 2),
    "conv2d": lambda x: F.conv2d(x, WEIGHT_2D, stride=3, padding=1),
    "conv1d": lambda x: F.conv1d(x[:, :, :, 0], WEIGHT_1D, stride=3, padding=1),
    "conv3d": lambda x: F.conv3d(x.unsqueeze(2).expand(-1, -1, 3, -1, -1), WEIGHT_3D, stride=2),
}


@pytest.mark.parametrize("name", sorted(SHORT))
def test_windows_that_stop_short_of_a_small_input(name: str) -> None:
    """Strided windows that leave a tail of the (padded) input unread, with an output
    dimension of size 1: IREE failed to compile them ('linalg.generic' op inferred input/output
    operand #1 has shape's dimension #0 to be 5, but found 3)."""
    x = torch.randn(1, 2, 3, 7)
    fn = SHORT[name]
    got, want = compile_torch(fn, (x,))(x), fn(x)
    for g, w in zip(
        torch.utils._pytree.tree_leaves(got), torch.utils._pytree.tree_leaves(want), strict=True
    ):
        torch.testing.assert_close(g, w)


class Fractional(torch.nn.Module):
    def forward(
        self, x: torch.Tensor, y: torch.Tensor, s2: torch.Tensor, s3: torch.Tensor
    ) -> tuple:
        return (
            torch.ops.aten.fractional_max_pool2d(x, [3, 2], [2, 4], s2),
            torch.ops.aten.fractional_max_pool2d(x[0], [2, 2], [4, 4], s2[:1]),
            torch.ops.aten.fractional_max_pool3d(y, [2, 3, 2], [3, 3, 4], s3),
        )


def test_fractional_max_pooling_with_its_samples_matches_eager() -> None:
    """Each plane's windows from its random samples (2-d: W then H; 3-d: T, H, W), computed in
    the input's dtype as ATen does; the last NaN of a window, else its first maximum."""
    generator = torch.Generator().manual_seed(1)
    x, y = torch.randn(2, 3, 9, 9, generator=generator), torch.randn(2, 2, 7, 8, 9)
    x.view(-1)[[10, 200, 201]] = float("nan")
    x[0, 1] = -float("inf")
    y.view(-1)[[3, 400]] = float("nan")
    model = Fractional()
    compiled = compile_torch(model, (x, y, torch.rand(2, 3, 2), torch.rand(2, 2, 3)))
    for _ in range(4):
        s2, s3 = torch.rand(2, 3, 2, generator=generator), torch.rand(2, 2, 3, generator=generator)
        got = compiled(x, y, s2, s3)
        torch.testing.assert_close(got, model(x, y, s2, s3), equal_nan=True, rtol=0, atol=0)


def test_fractional_max_pooling_draws_its_windows_and_points_at_its_values() -> None:
    """F.fractional_max_pool2d draws the samples itself: the compiled model's indices point at
    the values it returns."""
    x = torch.randn(2, 3, 10, 10)
    pool = torch.nn.FractionalMaxPool2d(3, output_size=4, return_indices=True)
    values, indices = compile_torch(pool, (x,))(x)
    assert values.shape == indices.shape == (2, 3, 4, 4)
    torch.testing.assert_close(x.flatten(2).gather(2, indices.flatten(2)), values.flatten(2))
