"""Max and average pooling where torch-mlir's lowering differs from ATen's, as ATen computes it.

An empty stride means the kernel's size; torch-mlir took it for 1 in max pooling with
indices (`F.max_pool2d(x, 2, return_indices=True)` failed to import), so it is written out.
With `ceil_mode`, ATen adds a last window that may run past the input's end (never one that
starts past it); torch-mlir sized or filled that window wrongly (max pooling gave wrong numbers
without a word, average pooling of 1-d and 3-d inputs failed to import), and it has no
lowering for `divisor_override`.  Where ceil mode adds no window, the op is computed as
without it.

Max pooling's values are 2-d max pools without ceil mode, which torch-mlir lowers to
`reduce_window`: ceil mode's last window is padding of the dtype's lowest value (so a NaN in a
window still gives NaN), and a 3-d pool is a 2-d one over the last two dimensions then one
over the first (the maximum over a box is the maximum of its planes' maxima).  Their indices
are every window gathered, one spatial dimension at a time, and picked as ATen's kernels pick:
the last NaN, else the first maximum, and a window of -inf alone gives its first in-bounds
position (torch-mlir's lowering and PyTorch's decomposition took the first NaN, and the
padding in a window of -inf).  The values never come from that gather, so where the indices
are unused it is dead code and dropped: IREE compiles it into intermediates many times the
input.

Average pooling with ceil mode or `divisor_override` is the sum over the zero-padded windows
divided by ATen's divisor for each output position, worked out here from the static shapes:
the window's size clipped to the padded input (`count_include_pad`) or to the input itself,
or `divisor_override`.  Averages (and means) of f16 and bf16 tensors are computed in f32 and
rounded once, as ATen's kernels compute them: the window's sum in the 16-bit type passed its
maximum where the average does not.  3-d adaptive average pooling, which torch-mlir has no
lowering for, sums a small window element by element in ATen's order and a larger one as 2-d
adaptive average pools, over the last two dimensions then over the first.

Adaptive max pooling gathers and picks every window (ATen's bounds) as max pooling's indices
do, values included.

Fractional max pooling, which torch-mlir has no lowering for, gathers each plane's windows from
its random samples as ATen's `generate_intervals` places them (in the input's dtype, as the
kernel computes them) and picks the same element as adaptive max pooling.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)
from torch._meta_registrations import pooling_output_shape

from shlo.frontend.reentry import Reentry

aten = torch.ops.aten


def _expand(value: Sequence[int] | int, rank: int, default: Sequence[int] = ()) -> list[int]:
    """A pooling argument as one int per spatial dimension, as ATen reads it."""
    if isinstance(value, int):
        return [value] * rank
    if not value:
        return list(default)
    return list(value) * rank if len(value) == 1 else list(value)


def _sizes(
    x: torch.Tensor, kernel: list[int], stride: list[int], padding: list[int], dilation: list[int]
) -> list[list[int]]:
    """The output sizes without and with ceil mode."""
    spatial = x.shape[-len(kernel) :]
    output_shape: Callable[..., int] = pooling_output_shape  # untyped in torch
    return [
        [output_shape(n, k, p, s, d, ceil) for n, k, p, s, d in zip(
            spatial, kernel, padding, stride, dilation, strict=True
        )]
        for ceil in (False, True)
    ]  # fmt: skip


_VALUES = Reentry("max_pool_values")


def _max_pool(rank: int) -> Callable[..., Any]:
    """max_pool2d/3d_with_indices as ATen computes it: its values as 2-d max pools torch-mlir
    lowers to `reduce_window`, its indices from every window gathered and picked as ATen's
    kernel picks (`_pick_windows`), which is left out where they are unused."""

    def run(
        x: torch.Tensor,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Sequence[int] = (0,),
        dilation: Sequence[int] = (1,),
        ceil_mode: bool = False,
    ) -> Any:
        if _VALUES.inside():
            return NotImplemented  # a 2-d pool of `_max_values`: torch-mlir lowers its values
        kernel = _expand(kernel_size, rank)
        options = (_expand(stride, rank, kernel), _expand(padding, rank), _expand(dilation, rank))
        sizes = _sizes(x, kernel, *options)[ceil_mode]
        windows = [
            _strided_windows(n, out, k, s, p, d)
            for n, out, k, s, p, d in zip(x.shape[-rank:], sizes, kernel, *options, strict=True)
        ]
        return _max_values(x, kernel, *options, sizes), _pick_windows(x, windows)[1]

    return run


def _strided_windows(
    n: int, out: int, kernel: int, stride: int, padding: int, dilation: int
) -> Window:
    """The `out` windows of a pooling over `n` positions, its first and last in-bounds
    positions as ATen's kernel skips the padding (`while (ih0 < 0) ih0 += dilationH`)."""
    starts = torch.arange(out) * stride - padding
    skipped = -(starts.clamp(max=0) // dilation)  # ceil(-start / dilation) for a start below 0
    steps = ((n - 1 - starts) // dilation).clamp(max=kernel - 1)
    return Window(starts, dilation, starts + skipped * dilation, starts + steps * dilation, kernel)


def _max_values(
    x: torch.Tensor,
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    sizes: list[int],
) -> torch.Tensor:
    """Max pooling's values, `sizes` windows a dimension, as 2-d max pools without ceil mode:
    ceil mode's last window padded with the dtype's lowest value, a 3-d pool as one over the
    last two dimensions then one over the first (a maximum is one of maxima)."""
    rank, extents = len(kernel), x.shape[-len(kernel) :]
    widths = []  # F.pad takes the last dimension first
    for n, k, s, p, d, out in reversed(
        list(zip(extents, kernel, stride, padding, dilation, sizes, strict=True))
    ):
        widths += [0, max((out - 1) * s + (k - 1) * d + 1 - n - 2 * p, 0)]
    if any(widths):
        lowest = -math.inf if x.dtype.is_floating_point else torch.iinfo(x.dtype).min
        x = F.pad(x, widths, value=lowest)
    if rank == 2:
        return _max_pool2d(x, kernel, stride, padding, dilation)
    lead, (depth, height, width) = x.shape[:-3], x.shape[-3:]
    both = (kernel, stride, padding, dilation)
    options = [option[1:] for option in both]
    planes = _max_pool2d(x.reshape(-1, depth, height, width), *options)
    columns = planes.reshape(planes.shape[0], 1, depth, -1)
    options = [[option[0], unit] for option, unit in zip(both, (1, 1, 0, 1), strict=True)]
    return _max_pool2d(columns, *options).reshape(*lead, sizes[0], *planes.shape[-2:])


def _max_pool2d(x: torch.Tensor, *options: list[int]) -> torch.Tensor:
    """The values of a 2-d max pool without ceil mode, which torch-mlir lowers to
    `reduce_window`."""
    with _VALUES.entered():
        values: torch.Tensor = aten.max_pool2d_with_indices.default(x, *options, False)[0]
    return values


# ATen's CPU kernels average 16-bit floats in f32, rounding once: a window's sum may pass
# the 16-bit maximum where its average does not.
_ACCUMULATED_IN_F32 = (torch.float16, torch.bfloat16)


def averaged_in_f32(op: Any) -> Callable[..., Any]:
    """`op` (a mean) of a 16-bit float tensor computed in f32 and rounded once, as ATen does."""

    def run(x: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if x.dtype not in _ACCUMULATED_IN_F32 or kwargs.get("dtype") not in (None, x.dtype):
            return NotImplemented
        return op(x.float(), *args, **{**kwargs, "dtype": None}).to(x.dtype)

    return run


def _avg_pool(op: Any, rank: int) -> Callable[..., Any]:
    """`op` (avg_pool2d/3d) with ceil mode and `divisor_override` as ATen computes them, of
    16-bit floats in f32."""

    def run(
        x: torch.Tensor,
        kernel_size: Sequence[int],
        stride: Sequence[int] = (),
        padding: Sequence[int] = (0,),
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> Any:
        kernel = _expand(kernel_size, rank)
        step, pad = _expand(stride, rank, kernel), _expand(padding, rank)
        if x.dtype in _ACCUMULATED_IN_F32:
            options = (ceil_mode, count_include_pad, divisor_override)
            return op(x.float(), kernel, step, pad, *options).to(x.dtype)
        if not ceil_mode and divisor_override is None:
            return NotImplemented
        floor, ceil = _sizes(x, kernel, step, pad, [1] * rank)
        sizes = ceil if ceil_mode else floor
        if sizes == floor and divisor_override is None:
            return op(x, kernel, step, pad, False, count_include_pad)
        extents = x.shape[-rank:]
        widths = []  # F.pad takes the last dimension first
        for n, k, s, p, out in reversed(list(zip(extents, kernel, step, pad, sizes, strict=True))):
            widths += [p, max((out - 1) * s + k - n - p, 0)]
        padded = F.pad(x, widths)
        window = math.prod(kernel)
        sums = op(padded, kernel, step, [0] * rank, False, True) * window
        windows = sums
        for dim, out in enumerate(sizes):  # the padding may hold a window more than asked
            windows = windows.narrow(dim - rank, 0, out)
        divisor = _divisors(extents, kernel, step, pad, sizes, count_include_pad, divisor_override)
        return windows / divisor.to(windows.dtype)

    return run


def _divisors(
    extents: Sequence[int],
    kernel: list[int],
    stride: list[int],
    padding: list[int],
    sizes: list[int],
    count_include_pad: bool,
    divisor_override: int | None,
) -> torch.Tensor:
    """ATen's divisor for each output position (`AvgPoolKernel.cpp`), from the shapes."""
    if divisor_override is not None:
        return torch.full(sizes, divisor_override, dtype=torch.float64)
    divisor = torch.ones(sizes, dtype=torch.float64)
    for dim, (n, k, s, p, out) in enumerate(
        zip(extents, kernel, stride, padding, sizes, strict=True)
    ):
        start = torch.arange(out, dtype=torch.float64) * s - p
        end = torch.clamp(start + k, max=n + p)
        if not count_include_pad:
            start, end = torch.clamp(start, min=0), torch.clamp(end, max=n)
        shape = [1] * len(sizes)
        shape[dim] = out
        divisor = divisor * (end - start).reshape(shape)
    return divisor


def _adaptive_max_pool(rank: int) -> Callable[..., Any]:
    """adaptive_max_pool2d/3d as every window gathered and its maximum taken, picked as
    ATen's kernel picks it (`_pick_windows`): torch-mlir's lowering of uneven windows failed
    to import, and PyTorch's own decomposition of global pooling takes the first NaN where
    eager takes the last."""

    def run(x: torch.Tensor, output_size: Sequence[int]) -> Any:
        extents = x.shape[-rank:]
        return _pick_windows(
            x, [_adaptive_windows(n, out) for n, out in zip(extents, output_size, strict=True)]
        )

    return run


class Window(NamedTuple):
    """A pooling's windows along one spatial dimension: window i reads `length` positions
    `starts[i] + j * step`, those before `firsts[i]` or after `lasts[i]` (padding, or past a
    shorter window's end) read as `firsts[i]` or `lasts[i]` again."""

    starts: torch.Tensor
    step: int
    firsts: torch.Tensor
    lasts: torch.Tensor
    length: int

    def positions(self, offsets: torch.Tensor, shape: Sequence[int] = (-1, 1)) -> torch.Tensor:
        """The position each window's `offsets`-th element is read from, the windows laid
        out along `shape`."""
        starts, firsts, lasts = (t.reshape(shape) for t in (self.starts, self.firsts, self.lasts))
        return torch.minimum(torch.maximum(starts + offsets * self.step, firsts), lasts)


def _pick_windows(x: torch.Tensor, windows: Sequence[Window]) -> tuple[torch.Tensor, torch.Tensor]:
    """Each window's maximum and its element's index in its plane, picked as ATen's pooling
    kernels pick it (`_pool_pick`), from every window gathered one spatial dimension at a time.
    Reading the padding as a window's first in-bounds position again and the positions past its
    end as its last again changes neither its first maximum nor its last NaN, and a window of
    -inf alone gives its first in-bounds position, as ATen's kernels start from it.  The index
    is arithmetic on the window bounds, not a second gather (IREE compiles gathers that index
    every dimension slowly)."""
    rank = len(windows)
    lead, extents = x.dim() - rank, list(x.shape[-rank:])
    values, local = _pool_pick(_gathered(x, windows).flatten(lead + rank))
    flat = torch.zeros_like(local)
    for dim, window in enumerate(windows):  # local's digits, a dim each
        below = math.prod(inner.length for inner in windows[dim + 1 :])
        shape = [-1 if d == dim else 1 for d in range(rank)]
        offsets = local // below % window.length
        flat = flat * extents[dim] + window.positions(offsets, shape)
    return values, flat


def _gathered(x: torch.Tensor, windows: Sequence[Window]) -> torch.Tensor:
    """Every window's elements, [..., outputs per dim..., window lengths...], gathered one
    spatial dimension at a time (`Window.positions`)."""
    rank = len(windows)
    lead = x.dim() - rank
    picked = x
    for dim, window in enumerate(windows):  # each dim n becomes (out, length)
        positions = window.positions(torch.arange(window.length))
        at = lead + 2 * dim
        picked = picked.index_select(at, positions.reshape(-1))
        picked = picked.reshape(*picked.shape[:at], *positions.shape, *picked.shape[at + 1 :])
    order = [2 * d for d in range(rank)] + [2 * d + 1 for d in range(rank)]
    return picked.permute(*range(lead), *(lead + d for d in order))


def _pool_pick(windows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The maximum over the last dimension and its position as ATen's pooling kernels pick it
    (`val > max || isnan(val)`): the last NaN where there is one, else the first maximum."""
    nan = torch.isnan(windows)
    last = windows.shape[-1] - 1 - torch.argmax(nan.flip(-1).to(torch.uint8), -1)
    local = torch.where(nan.any(-1), last, torch.argmax(windows, -1))
    return torch.amax(windows, -1), local


def _adaptive_windows(n: int, out: int) -> Window:
    """ATen's `out` adaptive windows over `n` (start = floor(i*n/out), end = ceil((i+1)*n/out)),
    each as long as the longest one."""
    starts = torch.arange(out) * n // out
    ends = -(-(torch.arange(out) + 1) * n // out)
    longest = max(-(-(i + 1) * n // out) - i * n // out for i in range(out))
    return Window(starts, 1, starts, ends - 1, longest)


# A window of at most this many elements is summed one element after another, in ATen's order.
_SEQUENTIAL_TERMS = 64


def _adaptive_avg_pool3d(x: torch.Tensor, output_size: Sequence[int]) -> torch.Tensor:
    """ATen's `_adaptive_avg_pool3d`, which torch-mlir has no lowering for.  A window of up to
    `_SEQUENTIAL_TERMS` elements is summed as ATen's kernel sums it, element after element over
    depth, height and width, and divided by its extent in each (`sum / kd / kh / kw`): the
    order decides which terms a huge partial sum absorbs.  Larger windows are 2-d adaptive
    average pools (ATen's windows), over the last two dimensions then over the first.  16-bit
    floats are averaged in f32 and rounded once, as the 2-d kernels do."""
    if x.dtype in _ACCUMULATED_IN_F32:
        return _adaptive_avg_pool3d(x.float(), output_size).to(x.dtype)
    windows = [_adaptive_windows(n, out) for n, out in zip(x.shape[-3:], output_size, strict=True)]
    if math.prod(window.length for window in windows) <= _SEQUENTIAL_TERMS:
        return _summed_in_order(x, windows)
    pool = aten._adaptive_avg_pool2d.default
    depth, height, width = x.shape[-3:]
    planes = pool(x.reshape(-1, depth, height, width), list(output_size[1:]))
    columns = planes.reshape(planes.shape[0], 1, depth, -1)
    averages: torch.Tensor = pool(columns, [output_size[0], columns.shape[-1]])
    return averages.reshape(*x.shape[:-3], *output_size)


def _summed_in_order(x: torch.Tensor, windows: Sequence[Window]) -> torch.Tensor:
    """Each window's elements added one after another in row-major order, divided by the
    window's extent along each dimension in turn."""
    inside, extents = torch.ones((), dtype=torch.bool), []
    for dim, window in enumerate(windows):
        within = window.starts.unsqueeze(-1) + torch.arange(
            window.length
        ) <= window.lasts.unsqueeze(-1)
        shape = [1] * (2 * len(windows))
        shape[dim], shape[len(windows) + dim] = window.starts.numel(), window.length
        inside = inside & within.reshape(shape)
        layout = [1] * len(windows)
        layout[dim] = -1
        extents.append((window.lasts - window.starts + 1).reshape(layout))
    terms = torch.where(inside, _gathered(x, windows), 0.0).flatten(-len(windows))
    total = torch.zeros_like(terms[..., 0])
    for index in range(terms.shape[-1]):
        total = total + terms[..., index]
    for size in extents:
        total = total / size.to(total.dtype)
    return total


_NUMPY = {torch.float16: np.float16, torch.float32: np.float32, torch.float64: np.float64}
# Which of a plane's random samples sets each spatial dim's windows (FractionalMaxPool2d.cpp:
# W then H; FractionalMaxPool3d.cpp: T, H, W).
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _fractional_starts(samples: torch.Tensor, n: int, out: int, pool: int) -> torch.Tensor:
    """ATen's `generate_intervals` for each plane's sample (`samples`: [N, C]), computed in the
    samples' dtype as it is: the i-th window starts at int((i + s) * alpha) - int(s * alpha),
    alpha = (n - pool) / (out - 1), and the last at n - pool."""
    last = torch.full((*samples.shape, 1), n - pool, dtype=torch.int64)
    if out == 1:
        return last
    alpha = float(
        np.array(n - pool, _NUMPY[samples.dtype]) / np.array(out - 1, _NUMPY[samples.dtype])
    )
    steps = torch.arange(out - 1, dtype=samples.dtype)
    starts = ((steps + samples.unsqueeze(-1)) * alpha).to(torch.int64)
    starts = starts - (samples * alpha).to(torch.int64).unsqueeze(-1)
    return torch.cat([starts, last], -1)


def _fractional_max_pool(rank: int) -> Callable[..., Any]:
    """fractional_max_pool2d/3d with its random samples given (F.fractional_max_pool draws
    them), as ATen's CPU kernel computes it: each plane's windows from its samples, the last
    NaN of a window, else its first maximum, and that element's index in the plane."""

    def run(
        x: torch.Tensor, kernel_size: Sequence[int], output_size: Sequence[int], samples: Any
    ) -> Any:
        if samples.dtype not in _NUMPY or x.dim() not in (rank + 1, rank + 2):
            return NotImplemented
        batched = x if x.dim() == rank + 2 else x.unsqueeze(0)
        extents = list(batched.shape[2:])
        planes = batched.reshape(*batched.shape[:2], -1)
        index = torch.zeros((), dtype=torch.int64)
        for d in range(rank):
            starts = _fractional_starts(
                samples[..., _SAMPLE_OF_DIM[rank][d]], extents[d], output_size[d], kernel_size[d]
            )
            positions = starts.unsqueeze(-1) + torch.arange(kernel_size[d])  # [N, C, out, pool]
            shape = [1] * (2 * rank)
            shape[d], shape[rank + d] = output_size[d], kernel_size[d]
            index = index * extents[d] + positions.reshape(*positions.shape[:2], *shape)
        windows = torch.gather(planes, 2, index.reshape(*index.shape[:2], -1))
        windows = windows.reshape(*index.shape[: 2 + rank], -1)
        values, local = _pool_pick(windows)
        flat = index.reshape(*index.shape[: 2 + rank], -1)
        chosen = torch.gather(flat, -1, local.unsqueeze(-1)).squeeze(-1)
        if x.dim() == rank + 1:
            return values.squeeze(0), chosen.squeeze(0)
        return values, chosen

    return run


POOLING: dict[Any, Callable[..., Any]] = {
    aten.fractional_max_pool2d.default: _fractional_max_pool(2),
    aten.fractional_max_pool3d.default: _fractional_max_pool(3),
    aten.adaptive_max_pool2d.default: _adaptive_max_pool(2),
    aten.adaptive_max_pool3d.default: _adaptive_max_pool(3),
    aten.max_pool2d_with_indices.default: _max_pool(2),
    aten.max_pool3d_with_indices.default: _max_pool(3),
    aten.avg_pool2d.default: _avg_pool(aten.avg_pool2d.default, 2),
    aten.avg_pool3d.default: _avg_pool(aten.avg_pool3d.default, 3),
    aten._adaptive_avg_pool3d.default: _adaptive_avg_pool3d,
}
