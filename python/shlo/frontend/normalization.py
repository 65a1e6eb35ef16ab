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
stored statistic may still round the other way than eager's.  float32 and float64 inputs go
through PyTorch's decomposition.  The running statistics are updated in float32 from the stored
ones and rounded once (eager rounds each step).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

import torch
from torch._decomp import decomposition_table

aten = torch.ops.aten

_REDUCED = (torch.float16, torch.bfloat16)


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


def _as_eager(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    running: tuple[torch.Tensor | None, torch.Tensor | None],
    momentum: float,
    eps: float,
) -> Any:
    """(output, mean, invstd, new running mean, new running var) as eager computes them, or
    NotImplemented for an input of 32 or 64 bits."""
    if x.dtype not in _REDUCED:
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
    alpha = invstd if weight is None else invstd * weight.float()
    beta = -mean * alpha if bias is None else bias.float() - mean * alpha
    out = (wide * alpha.reshape(shape) + beta.reshape(shape)).to(x.dtype)
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
    if not training:
        return NotImplemented
    return _as_eager(x, weight, bias, (running_mean, running_var), momentum, eps)


def legit(*args: Any) -> Any:
    """`legit_functional`, the running statistics (arguments 3 and 4) updated in place."""
    result = legit_functional(*args)
    if result is NotImplemented:
        return result
    args[3].copy_(result[3])
    args[4].copy_(result[4])
    return result[:3]


def legit_no_stats(
    x: torch.Tensor,
    weight: torch.Tensor | None,
    bias: torch.Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
) -> Any:
    result = _as_eager(x, weight, bias, (None, None), momentum, eps)
    return result if result is NotImplemented else result[:3]


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
}
NORMALIZATION: dict[Any, Callable[..., Any]] = {
    op: _or_pytorchs(op, mine) for op, mine in _WRITTEN_OUT.items()
}
