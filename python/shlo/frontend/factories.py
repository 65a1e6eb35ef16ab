"""Tensor factories torch-mlir has no lowering for, or lowers wrong, in ops it lowers right.

`randint_like` is `randint` of the input's shape, in the input's dtype unless one is given, as
PyTorch's inductor decomposes it (`torch._inductor.decomposition`, whose import costs seconds,
so its two lines are written here).  `randint` is the floor of a float64 uniform draw scaled to
the range: torch-mlir lowered it for a float dtype to the uniform draw itself, not rounded
(`randint(3, 10, dtype=float32)` gave 7.4762).  The uniform draw is lowered to `stablehlo.rng`,
which `shlo-hashed-rng` draws from.

`empty_strided`, `new_empty_strided` and `empty_permuted`, whose values are undefined and whose
strides and layouts StableHLO has no use for, are the `empty` tensor of their size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten


def randint_like(
    x: torch.Tensor, low: int, high: int | None = None, *, dtype: Any = None, **options: Any
) -> Any:
    """`randint_like(x, high)` and `randint_like(x, low, high)`."""
    if high is None:
        low, high = 0, low
    options.pop("memory_format", None)  # a fresh tensor is contiguous
    return aten.randint.low(low, high, list(x.shape), dtype=dtype or x.dtype, **options)


def randint(low: int, high: int, size: Any, *, dtype: Any = None, **options: Any) -> Any:
    """Integers drawn evenly from [low, high), in `dtype` (int64 by default)."""
    options.pop("generator", None)
    draw = torch.rand(size, dtype=torch.float64, device=options.get("device"))
    values = torch.clamp(torch.floor(draw * (high - low)), max=high - low - 1) + low
    return values.to(dtype or torch.int64)


def randint_high(high: int, size: Any, **options: Any) -> Any:
    return randint(0, high, size, **options)


def empty_strided(size: Any, stride: Any, **options: Any) -> Any:
    return aten.empty.memory_format(size, **options)


def new_empty_strided(
    x: torch.Tensor, size: Any, stride: Any, *, dtype: Any = None, **options: Any
) -> Any:
    return aten.empty.memory_format(size, dtype=dtype or x.dtype, **options)


FACTORIES: dict[Any, Callable[..., Any]] = {
    aten.randint_like.default: randint_like,
    aten.randint_like.low_dtype: randint_like,
    aten.randint.low: randint,
    aten.randint.default: randint_high,
    aten.empty_strided.default: empty_strided,
    aten.empty_permuted.default: empty_strided,
    aten.new_empty_strided.default: new_empty_strided,
}
