"""`torch.fmod` of floats as StableHLO's `remainder`, which IREE computes exactly.

torch-mlir lowers `fmod` as `a - trunc(a / b) * b` in the operands' type: the rounded quotient
and product gave wrong numbers once the quotient passed the significand's precision (-2**31
fmod 2.5 came out 32 in f32) and NaN for an infinite divisor, where C's fmod (eager's) gives the
dividend.  torch-mlir lowers `aten.remainder` itself to StableHLO's `remainder`, C's fmod, so a
float `fmod` is written as that op, kept from the decomposition of Python's remainder while
`exact_fmod` is set.  IREE cannot link an f64 `remainder` for the CPU, so an f64 `fmod` keeps
torch-mlir's quotient, exact while `trunc(a / b) * b` is (not for quotients past 2**53), and
gives the dividend for an infinite divisor.
"""

from __future__ import annotations

from typing import Any

import torch

from shlo.frontend.reentry import Reentry

aten = torch.ops.aten

# Entered while a float fmod is written as `aten.remainder`, which must then stay as it is.
exact_fmod = Reentry("exact_fmod")


def as_divisor(dividend: torch.Tensor, divisor: Any, dtype: torch.dtype | None = None) -> Any:
    """`divisor`, a number made a tensor of `dividend`'s shape: torch-mlir lowers fmod and the
    divisions by a tensor, not by a number."""
    if isinstance(divisor, torch.Tensor):
        return divisor
    return torch.full_like(dividend, divisor, dtype=dtype)


def fmod(dividend: torch.Tensor, divisor: Any) -> Any:
    """aten.fmod (by a tensor or a number) as C's fmod; integers by a tensor lower as they are,
    by a number as by a tensor of it (torch-mlir has no lowering for `fmod` by a number)."""
    dtype = torch.result_type(dividend, divisor)
    if exact_fmod.inside():
        return NotImplemented
    if isinstance(divisor, torch.Tensor) and not dtype.is_floating_point:
        return NotImplemented
    divisor = as_divisor(dividend, divisor, dtype)
    if not dtype.is_floating_point:
        return aten.fmod.Tensor(dividend, divisor)
    dividend, divisor = dividend.to(dtype), divisor.to(dtype)
    # IREE's remainder divides by a subnormal divisor that every other op reads as zero
    divisor = torch.where(divisor.abs() < torch.finfo(dtype).tiny, divisor * 0, divisor)
    with exact_fmod.entered():
        if dtype != torch.float64:
            return aten.remainder.Tensor(dividend, divisor)
        # IREE cannot link an f64 `remainder`: torch-mlir's quotient, right but for an
        # infinite divisor
        near = aten.fmod.Tensor(dividend, divisor)
        return torch.where(torch.isinf(divisor) & torch.isfinite(dividend), dividend, near)
