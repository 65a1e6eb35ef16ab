"""float16 and bfloat16 ops computed in float32 and rounded once, as ATen computes them.

ATen's CPU kernels compute a 16-bit float op in float32 (its `opmath` type) and round only its
result: a pointwise op, a Python number it is given (at float32's precision, not rounded to
the tensor's type first), and the sums of softmax, cumsum and mean.  torch-mlir writes many
such ops as several StableHLO ops in the 16-bit type, each rounded: float16 `gelu(-3.8)` came
out -0.0 (1 + erf(x) cancelled) where eager gives -2.9e-4, `sigmoid` and `x * 0.1` were an
ulp off in a third of the elements, and a float16 `cumsum` of 64 values lost its low bits.
So each such op whose 16-bit float operands give it a 16-bit float result takes them as
float32 and has its float32 results rounded back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import torch
from torch.utils import _pytree as pytree

aten = torch.ops.aten

SIXTEEN_BIT = (torch.float16, torch.bfloat16)
# Ops beside the pointwise ones whose 16-bit kernels sum or scan in float32.
ACCUMULATING = (
    aten._softmax.default,
    aten._log_softmax.default,
    aten.cumsum.default,
    aten.cumprod.default,
    aten.logsumexp.default,
    aten.sum.dim_IntList,
    aten.mean.dim,
    aten._softmax_backward_data.default,
    aten._log_softmax_backward_data.default,
)
# Pointwise ops whose answer is defined by the 16-bit type itself.
OWN_TYPE = (aten.nextafter.default, aten.frexp.Tensor)
# The operands of a binary op, which ATen's kernels read in the tensor's type: a number (or a
# 0-d tensor of another float type) rounded to it, but for multiplication and division,
# which read a number at float32's precision.  Other numbers (an activation's slope, lerp's
# weight) are parameters, read at float32's precision.
OPERANDS = ("self", "other", "exponent", "alpha")
PRECISE_NUMBERS = (
    aten.mul.Tensor,
    aten.mul.Scalar,
    aten.div.Tensor,
    aten.div.Scalar,
    aten.div.Tensor_mode,
    aten.div.Scalar_mode,
)


def in_float32(table: dict[Any, Callable[..., Any]]) -> dict[Any, Callable[..., Any]]:
    """`table` with every pointwise and `ACCUMULATING` op computed in float32 where its result
    is float16 or bfloat16; an op's own entry still decomposes it otherwise."""
    return {
        **table,
        **{op: functools.partial(_computed_in_float32, op, table.get(op)) for op in _ops()},
    }


@functools.cache
def _ops() -> tuple[Any, ...]:
    """Every functional pointwise ATen op that draws no random numbers, and `ACCUMULATING`."""
    found = []
    for name in dir(aten):
        packet = getattr(aten, name, None)
        if not isinstance(packet, torch._ops.OpOverloadPacket) or name.endswith("_"):
            continue
        for overload in packet.overloads():  # type: ignore[no-untyped-call]
            op = getattr(packet, overload)
            tags = op.tags
            if (
                torch.Tag.pointwise in tags
                and torch.Tag.nondeterministic_seeded not in tags
                and "out" not in overload
                and op not in OWN_TYPE
            ):
                found.append(op)
    return (*found, *ACCUMULATING)


def _sixteen_bit(args: Any) -> torch.dtype | None:
    """The 16-bit float type of the op's result where its floats decide it: every float
    tensor of one or more dimensions (else every float tensor) is of that one type."""
    floats = [
        leaf
        for leaf in pytree.tree_leaves(args)
        if isinstance(leaf, torch.Tensor) and leaf.is_floating_point()
    ]
    deciding = {t.dtype for t in floats if t.dim() > 0} or {t.dtype for t in floats}
    if len(deciding) == 1 and (kind := deciding.pop()) in SIXTEEN_BIT:
        return kind
    return None


def _asks_for_another_type(named: dict[str, Any]) -> bool:
    """Whether the op (its arguments by name) is told to give another type than its 16-bit
    operands' (a `dtype`, or softmax's `half_to_float`): its kernel then computes in that."""
    if named.get("half_to_float") is True:
        return True
    kinds = [v for v in pytree.tree_leaves(named) if isinstance(v, torch.dtype)]
    return any(kind not in SIXTEEN_BIT for kind in kinds)


def _computed_in_float32(
    op: Any, decomposition: Callable[..., Any] | None, *args: Any, **kwargs: Any
) -> Any:
    names = [argument.name for argument in op._schema.arguments]
    kind = _sixteen_bit((args, kwargs))
    named = {**dict(zip(names, args, strict=False)), **kwargs}
    if kind is None or _asks_for_another_type(named):
        return NotImplemented if decomposition is None else decomposition(*args, **kwargs)
    rounds = op not in PRECISE_NUMBERS

    def widened(value: Any, name: str) -> Any:
        operand = rounds and name in OPERANDS
        if isinstance(value, torch.Tensor):
            if value.dtype == kind:
                return value.to(torch.float32)
            if operand and value.is_floating_point() and value.dim() == 0:
                return value.to(kind).to(torch.float32)
            return value
        if operand and isinstance(value, int | float) and not isinstance(value, bool):
            return _rounded(value, kind)
        return torch.float32 if value is kind else value

    wide_args = [widened(value, names[i] if i < len(names) else "") for i, value in enumerate(args)]
    wide_kwargs = {name: widened(value, name) for name, value in kwargs.items()}
    result = op(*wide_args, **wide_kwargs)
    return pytree.tree_map(
        lambda r: r.to(kind) if isinstance(r, torch.Tensor) and r.dtype == torch.float32 else r,
        result,
    )


def _rounded(number: float, kind: torch.dtype) -> float:
    """`number` as ATen converts a Scalar to `kind`: to float32, then to the 16-bit type
    (numpy, so that nothing of it enters the traced graph)."""
    narrow = np.float16 if kind == torch.float16 else ml_dtypes.bfloat16
    return float(narrow(np.float32(number)))
