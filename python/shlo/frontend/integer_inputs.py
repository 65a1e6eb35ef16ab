"""ATen ops of integer tensors that torch-mlir computes in the integer type, as eager does.

`copysign` promotes integers to a float (ATen's `INT_TO_FLOAT`) before it takes the absolute
value; torch-mlir negated in the integer type first, so the int32 minimum came out negative
whatever the sign it was given.  The operands are converted first.

`all` and `any` ask whether each element is nonzero; torch-mlir reduced a uint8 tensor with a
bitwise and (1 and 2 gave 0) and a bitwise or (1 or 2 gave 3).  They reduce the elements'
truth values, returned as eager does: uint8 for a uint8 tensor, bool for any other.  `all`
along several dimensions, which torch-mlir cannot lower, is whether `any` finds no zero.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten

# Reductions of truth values.
TRUTH_REDUCTIONS = (
    aten.all.default, aten.all.dim, aten.any.default, aten.any.dim, aten.any.dims,
)  # fmt: skip


def copysign(a: torch.Tensor, b: Any) -> Any:
    """aten.copysign in the float dtype eager computes it in; a number's sign as a tensor's,
    since torch-mlir has no lowering for `copysign` by a number."""
    dtype = torch.result_type(a, b)
    if not dtype.is_floating_point:
        dtype = torch.get_default_dtype()
    if isinstance(b, torch.Tensor) and a.dtype == b.dtype == dtype:
        return NotImplemented  # lowered correctly as it is
    sign = b.to(dtype) if isinstance(b, torch.Tensor) else torch.full_like(a, b, dtype=dtype)
    return aten.copysign.Tensor(a.to(dtype), sign)


def _as_eager_returns(result: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return result.to(torch.uint8) if x.dtype == torch.uint8 else result


def of_truth_values(op: Any) -> Callable[..., Any]:
    """`op` (all/any) of a non-boolean tensor as `op` of whether each element is nonzero."""

    def run(x: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        if x.dtype == torch.bool:
            return NotImplemented
        return _as_eager_returns(op(x != 0, *args, **kwargs), x)

    return run


def all_along(x: torch.Tensor, dim: Any = None, keepdim: bool = False) -> torch.Tensor:
    """aten.all.dims as no zero found by aten.any.dims."""
    return _as_eager_returns(~aten.any.dims(x == 0, dim, keepdim), x)
