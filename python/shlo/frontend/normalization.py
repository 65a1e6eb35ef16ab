"""Batch normalization of 16-bit floats with batch statistics, as ATen's CPU kernel computes it.

In training mode (and in `instance_norm`, which normalizes by each instance's statistics),
ATen's CPU kernel for float16 and bfloat16 inputs sums in float32 and stores the mean and
`invstd = 1 / sqrt(var + eps)` in the parameters' dtype (the input's, unless the parameters are
float32); for bfloat16 the sum of squared deviations, its count and `var` are rounded to bfloat16
too (float16 keeps them in float32).  It then computes `x * alpha + beta` in float32
(`alpha = invstd * weight`, `beta = bias - mean * alpha`) and rounds once.  PyTorch's own
decomposition keeps every statistic in float32 and normalizes as
`(x - mean) * invstd * weight + bias`, which set most float16 outputs a unit or two in the last
place apart from eager's, and whole bfloat16 channels where a stored statistic rounds the other
way.  Eager's float32 sums are not exact either: over millions of elements per channel, a
stored statistic may still round the other way than eager's.  The running statistics are
updated in float32 from the stored ones and rounded once (eager rounds each step).

float32 and float64 inputs, in training and in evaluation (`invstd` from the running
variance), take the same `x * alpha + beta`: PyTorch's form differs from eager's wherever a
statistic or parameter is infinite or NaN (an infinite weight times a zero `x - mean` is NaN
in one and not the other).

Layer and group normalization of float32 and float64 take each row's statistics as ATen's
`RowwiseMoments` does: Welford's update over the vector lanes, then the lanes combined.  Its
combination multiplies the square of a mean by a zero count, so a row whose mean squared
overflows (values beyond about 2**64 in float32) is NaN in eager, where PyTorch's two-pass
variance gave an infinite variance and zeros.  A row shorter than ATen's vector goes through
its scalar loop, which is repeated here step by step, so its mean and variance are eager's
exactly; in a row that fills its vectors exactly, the first lane's statistics are combined
into empty ones: the row is NaN when that lane's mean squared overflows (its mean here is the
plain one, not the order of Welford's updates).  Other rows' statistics are PyTorch's.  The
vector's width (by ATen's build and the CPU) is read off eager itself.  The output is
`x * rstd - mean * rstd` (then weight and bias), as ATen computes it: `(x - mean) * rstd`
overflowed to NaN where eager's is zero.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)
from torch._decomp import decomposition_table

aten = torch.ops.aten

_REDUCED = (torch.float16, torch.bfloat16)
_WELFORD = (torch.float32, torch.float64)


def _in(dtype: torch.dtype, value: torch.Tensor) -> torch.Tensor:
    """`value` rounded to `dtype`, as ATen stores it, back in float32 to compute on."""
    return value.to(dtype).float()


def _count(count: int, dtype: torch.dtype) -> float:
    """`count` as ATen divides a sum of `dtype` by it: rounded to that dtype (to nearest, ties
    to even; a number, not a tensor, which tracing would put in the graph)."""
    bits = struct.unpack("<I", struct.pack("<f", count))[0]
    if dtype == torch.bfloat16:
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return float(struct.unpack("<f", struct.pack("<I", bits))[0])


def _transformed(
    x: torch.Tensor,
    mean: torch.Tensor,
    invstd: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
) -> torch.Tensor:
    """ATen's `x * alpha + beta`, per channel `alpha = invstd * weight` and
    `beta = bias - mean * alpha` (a missing bias is 0), all in `x`'s dtype."""
    shape = [1, -1] + [1] * (x.dim() - 2)
    alpha = invstd if weight is None else invstd * weight.to(x.dtype)
    beta = (0 if bias is None else bias.to(x.dtype)) - mean * alpha
    return x * alpha.reshape(shape) + beta.reshape(shape)


def _wide_statistics(
    x: torch.Tensor,
    running: tuple[torch.Tensor | None, torch.Tensor | None],
    training: bool,
    momentum: float,
    eps: float,
) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor | None, torch.Tensor | None]]:
    """The mean and invstd that normalize a float32 or float64 input, as eager computes them
    (batch statistics in two passes in training, the running ones else), and the running
    statistics after."""
    running_mean, running_var = running
    if not training:
        assert running_mean is not None and running_var is not None  # ATen requires them
        return running_mean, 1 / torch.sqrt(running_var + eps), running
    dims = [0, *range(2, x.dim())]
    count = x.numel() // x.shape[1]
    mean = x.mean(dims)
    var_sum = torch.square(x - mean.reshape([1, -1] + [1] * (x.dim() - 2))).sum(dims)
    if running_mean is not None:
        running_mean = momentum * mean + (1 - momentum) * running_mean
    if running_var is not None:
        running_var = momentum * (var_sum / (count - 1)) + (1 - momentum) * running_var
    return mean, 1 / torch.sqrt(var_sum / count + eps), (running_mean, running_var)


def _as_eager(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running: tuple[torch.Tensor | None, torch.Tensor | None],
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    """(output, mean, invstd, new running mean, new running var) as eager computes them (in
    evaluation the mean and invstd are empty, as eager's), or NotImplemented for a 16-bit
    input in evaluation."""
    if x.dtype in _WELFORD:
        mean, invstd, running = _wide_statistics(x, running, training, momentum, eps)
        out = _transformed(x, mean, invstd, weight, bias)
        if not training:
            mean = invstd = x.new_zeros((0,))
        return out, mean, invstd, *running
    if not training or x.dtype not in _REDUCED:
        return NotImplemented
    # ATen's parameters are all of one dtype, else it refuses them
    dtype = next((p.dtype for p in (weight, bias, *running) if p is not None), x.dtype)
    sums = dtype if dtype == torch.bfloat16 else torch.float32  # float16's stay float32
    dims = [0, *range(2, x.dim())]
    shape = [1, -1] + [1] * (x.dim() - 2)
    count = x.numel() // x.shape[1]
    wide = x.float()
    mean = wide.mean(dims)
    var_sum = _in(sums, torch.square(wide - mean.reshape(shape)).sum(dims))
    mean = _in(dtype, mean)
    invstd = _in(dtype, 1 / torch.sqrt(_in(sums, var_sum / _count(count, sums)) + eps))
    out = _transformed(wide, mean, invstd, weight, bias).to(x.dtype)
    running_mean, running_var = running
    if running_mean is not None:
        running_mean = (momentum * mean + (1 - momentum) * running_mean.float()).to(dtype)
    if running_var is not None:
        unbiased = _in(sums, var_sum / _count(count - 1, sums))
        running_var = (momentum * unbiased + (1 - momentum) * running_var.float()).to(dtype)
    return out, mean.to(dtype), invstd.to(dtype), running_mean, running_var


def legit_functional(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running_mean: torch.Tensor,
    running_var: torch.Tensor,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    return _as_eager(x, weight, bias, (running_mean, running_var), training, momentum, eps)


def legit(*args: Any) -> Any:
    """`legit_functional`, the running statistics (arguments 3 and 4) updated in place in
    training (argument 5); evaluation leaves them as they are."""
    result = legit_functional(*args)
    if result is NotImplemented:
        return result
    if args[5]:
        args[3].copy_(result[3])
        args[4].copy_(result[4])
    return result[:3]


def _reserve() -> torch.Tensor:
    """The reserve tensor of the `_batch_norm_*_update` ops: empty on the CPU."""
    return torch.empty(0, dtype=torch.uint8)


def with_update_functional(*args: Any) -> Any:
    """`_batch_norm_with_update_functional` (input, weight, bias, running mean and variance,
    momentum, eps): training, as `legit_functional`."""
    x, weight, bias, running_mean, running_var, momentum, eps = args
    result = legit_functional(x, weight, bias, running_mean, running_var, True, momentum, eps)
    if result is NotImplemented:
        return result
    out, mean, invstd, new_mean, new_var = result
    return out, mean, invstd, _reserve(), new_mean, new_var


def with_update(*args: Any) -> Any:
    """`_batch_norm_with_update`: the running statistics (arguments 3 and 4) updated in place."""
    result = with_update_functional(*args)
    if result is NotImplemented:
        return result
    args[3].copy_(result[4])
    args[4].copy_(result[5])
    return result[:4]


def no_update(*args: Any) -> Any:
    """`_batch_norm_no_update` (the same arguments): evaluation, as `legit_functional`."""
    x, weight, bias, running_mean, running_var, momentum, eps = args
    result = legit_functional(x, weight, bias, running_mean, running_var, False, momentum, eps)
    return result if result is NotImplemented else (*result[:3], _reserve())


def legit_no_stats(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    result = _as_eager(x, weight, bias, (None, None), True, momentum, eps)
    return result if result is NotImplemented else result[:3]


def _lanes(dtype: torch.dtype) -> int:
    """How many `dtype` elements ATen's row moments take at a time (0: none found): the first
    row width at which one element whose square overflows, alone in the first lane, makes
    eager's layer norm NaN (shorter rows, in the scalar loop, divide it by their width)."""
    huge = 1.5 * torch.finfo(dtype).max ** 0.5
    for width in (2, 4, 8, 16, 32, 64):
        row = torch.zeros(1, width, dtype=dtype)
        row[0, 0] = huge
        if torch.isnan(F.layer_norm(row, [width])).all():
            return width
    return 0


# read off eager once, on import: while a graph is decomposed, layer norm is this module's own
_LANES = {dtype: _lanes(dtype) for dtype in _WELFORD}


_CHUNK = 16  # vectors ATen's row moments take before combining them pairwise (`kChunkSize`)


def _welford(rows: torch.Tensor, reciprocal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Welford's mean and sum of squared deviations along dimension -2 (each step's weight
    `1 / count` multiplied, as ATen's vector loop does, or divided by, as its scalar loop)."""
    mean = rows.new_zeros(rows.shape[:-2] + rows.shape[-1:])
    square_sum = torch.zeros_like(mean)
    for count in range(1, rows.shape[-2] + 1):
        x = rows[..., count - 1, :]
        delta = x - mean
        mean = mean + (1 / count) * delta if reciprocal else mean + delta / count
        square_sum = square_sum + delta * (x - mean)
    return mean, square_sum


def _moments(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The mean and biased variance along the last dimension, as ATen's `RowwiseMoments`:
    Welford's over each lane of the whole vectors, then over the rest, then the lanes added
    one by one.  Rows of more vectors than one chunk are PyTorch's two-pass statistics, NaN
    where the first lane's mean squared overflows."""
    width, lanes = rows.shape[-1], _LANES[rows.dtype]
    vectors = width // lanes if lanes else _CHUNK + 1
    if vectors > _CHUNK:
        var, mean = torch.var_mean(rows, -1, correction=0)
        if lanes and width % lanes == 0:
            first = rows[..., ::lanes].mean(-1)
            var = torch.where(torch.isinf(first * first), torch.nan, var)
        return mean, var
    whole = vectors * lanes
    lane_mean, lane_squares = _welford(
        rows[..., :whole].reshape(*rows.shape[:-1], vectors, lanes), True
    )
    # added to the empty first level of the cascade: its count (0) times the mean
    lane_squares = lane_mean * 0 * lane_mean + lane_squares
    mean, square_sum = (t[..., 0] for t in _welford(rows[..., whole:].unsqueeze(-1), False))
    count = width - whole
    for lane in range(lanes):
        weight = vectors / (count + vectors) if count + vectors else 0.0
        delta = lane_mean[..., lane] - mean
        mean = mean + weight * delta
        square_sum = square_sum + (lane_squares[..., lane] + delta * delta * weight * count)
        count += vectors
    return mean, square_sum / width


def layer_norm(
    x: torch.Tensor,
    normalized_shape: list[int],
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    eps: float,
) -> Any:
    """aten.native_layer_norm as ATen's CPU kernel computes it, for float32 and float64."""
    if x.dtype not in _WELFORD or not x.numel():
        return NotImplemented
    kept = x.shape[: x.dim() - len(normalized_shape)]
    mean, var = _moments(x.reshape(*kept, -1))
    rstd = 1 / torch.sqrt(var + eps)
    shape = [*kept, *[1] * len(normalized_shape)]
    mean, rstd = mean.reshape(shape), rstd.reshape(shape)
    out = x * rstd + -mean * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


def group_norm(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    batch: int,
    channels: int,
    inner: int,
    groups: int,
    eps: float,
) -> Any:
    """aten.native_group_norm as ATen's CPU kernel computes it (contiguous input), for float32
    and float64; of an empty input, the mean 0 and rstd NaN of each group (none for an empty
    batch) as eager gives them."""
    if x.dtype not in _WELFORD:
        return NotImplemented
    if not x.numel():
        statistics = torch.zeros(batch, groups, dtype=x.dtype)
        return x.clone(), statistics, statistics + torch.nan
    mean, var = _moments(x.reshape(batch, groups, -1))
    rstd = 1 / torch.sqrt(torch.clamp_min(var, 0) + eps)
    # per channel: scale = rstd * weight, shift = bias - scale * mean
    per_group = [batch, groups, 1]
    scale = rstd.reshape(per_group).expand(batch, groups, channels // groups)
    if weight is not None:
        scale = scale * weight.reshape(groups, -1)
    shift = -scale * mean.reshape(per_group)
    if bias is not None:
        shift = shift + bias.reshape(groups, -1)
    spatial = [1] * (x.dim() - 2)
    out = x * scale.reshape(batch, channels, *spatial) + shift.reshape(batch, channels, *spatial)
    return out, mean, rstd


def _or_pytorchs(op: Any, mine: Callable[..., Any]) -> Callable[..., Any]:
    """`mine`, and PyTorch's own decomposition of `op` where it returns NotImplemented."""

    def run(*args: Any, **kwargs: Any) -> Any:
        result = mine(*args, **kwargs)
        return decomposition_table[op](*args, **kwargs) if result is NotImplemented else result

    return run


_WRITTEN_OUT: dict[Any, Callable[..., Any]] = {
    aten._native_batch_norm_legit_functional.default: legit_functional,
    aten._native_batch_norm_legit.default: legit,
    aten._native_batch_norm_legit.no_stats: legit_no_stats,
    aten._batch_norm_with_update_functional.default: with_update_functional,
    aten._batch_norm_with_update.default: with_update,
    aten._batch_norm_no_update.default: no_update,
    aten.native_layer_norm.default: layer_norm,
    aten.native_group_norm.default: group_norm,
}
NORMALIZATION: dict[Any, Callable[..., Any]] = {
    op: _or_pytorchs(op, mine) for op, mine in _WRITTEN_OUT.items()
}
