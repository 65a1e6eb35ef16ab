"""Margin losses as ATen's CPU kernels compute them.

ATen's multi-class and multi-label margin losses add up `z = margin - x[target] + x[i]` only
where `z > 0`: a NaN term (NaN in the input, or `inf - inf`) is left out, and an infinite one
is kept.  PyTorch's decompositions take `clamp_min(z, 0)`, which keeps every NaN, so a loss
that eager reports as infinite (or finite, a NaN left out) came out NaN.  ATen sums each row,
divides it by the number of classes, and accumulates the rows in double precision; here each
row is divided by what the reduction divides by before the rows are added, so the sum cannot
overflow where eager's double-precision one does not.  A one-dimensional input's unreduced
loss is a 0-d tensor, as eager's.

`F.linear_cross_entropy` calls PyTorch's chunked custom ops (`torch_nn::_linear_cross_entropy_
batch_chunked` and its unreduced form), which torch-mlir cannot lower; without gradients to
compute, their value is the cross entropy of the linear layer's logits, computed as that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)
import torch.nn.modules.linear_cross_entropy  # noqa: F401 (registers the chunked ops)

aten = torch.ops.aten
_CHUNKED = torch.ops.torch_nn._linear_cross_entropy_batch_chunked.default
_CHUNKED_UNREDUCED = torch.ops.torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default

_MEAN, _SUM = 1, 2  # torch's `Reduction` numbering (0 is none)


def _reduced(rows: torch.Tensor, classes: int, reduction: int, shape: torch.Size) -> torch.Tensor:
    """Each row's sum of terms reduced as ATen does: divided by the number of classes, then
    kept (shaped as eager's), added, or averaged over the rows."""
    if reduction == _MEAN:  # of no rows, 0 / 0 as eager's
        count = rows.shape[0]
        return (rows / (classes * count)).sum() if count else rows.sum() / 0
    if reduction == _SUM:
        return (rows / classes).sum()
    return (rows / classes).reshape(shape)


def multi_margin_loss(
    x: torch.Tensor,
    target: torch.Tensor,
    p: int = 1,
    margin: float = 1,
    weight: torch.Tensor | None = None,
    reduction: int = _MEAN,
) -> torch.Tensor:
    rows = x.reshape(-1, x.shape[-1])
    picked = target.reshape(-1, 1)
    z = margin - torch.gather(rows, 1, picked) + rows
    term = z if p == 1 else z * z
    if weight is not None:
        term = term * weight[picked]
    others = torch.arange(rows.shape[1], device=x.device) != picked
    term = torch.where((z > 0) & others, term, 0)
    return _reduced(term.sum(1), rows.shape[1], reduction, x.shape[:-1])


def multilabel_margin_loss_forward(
    x: torch.Tensor, target: torch.Tensor, reduction: int
) -> tuple[torch.Tensor, torch.Tensor]:
    rows = x.reshape(-1, x.shape[-1])
    labels = target.reshape(-1, target.shape[-1])
    classes = rows.shape[1]
    position = torch.arange(classes, device=x.device)
    # a row's labels end at its first negative one
    end = torch.amin(torch.where(labels < 0, position, classes), dim=-1, keepdim=True)
    listed = position < end
    picked = torch.gather(rows, 1, torch.where(listed, labels, 0))
    is_target = (position == torch.where(listed, labels, -1).unsqueeze(-1)).any(1)
    # z[row, label, class]
    z = 1 - picked.unsqueeze(-1) + rows.unsqueeze(1)
    counted = (z > 0) & listed.unsqueeze(-1) & ~is_target.unsqueeze(1)
    rows_sum = torch.where(counted, z, 0).sum((1, 2))
    loss = _reduced(rows_sum, classes, reduction, x.shape[:-1])
    return loss, is_target.to(x.dtype).reshape(target.shape)


def multilabel_margin_loss(x: torch.Tensor, target: torch.Tensor, reduction: int = _MEAN) -> Any:
    return multilabel_margin_loss_forward(x, target, reduction)[0]


def _logits_entropy(args: tuple[Any, ...], reduction: str, smoothing: float) -> Any:
    """The cross entropy of the linear layer's logits: `args` are the chunked ops' first five
    (input, linear weight, target, linear bias, class weight) and ignore_index."""
    x, linear_weight, target, linear_bias, weight, ignore_index = args
    logits = F.linear(x, linear_weight, linear_bias)
    return F.cross_entropy(
        logits, target, weight, ignore_index=ignore_index, reduction=reduction,
        label_smoothing=smoothing,
    )  # fmt: skip


def linear_cross_entropy_chunked(*args: Any) -> Any:
    """`_linear_cross_entropy_batch_chunked`'s loss, and the empty gradients it returns when
    asked for none (its schema: ..., reduction, ignore_index, label_smoothing, chunk size,
    policy, acc_dtype, allow_retain_graph, then three compute-gradient flags)."""
    reduction, ignore_index, smoothing, acc_dtype = args[5], args[6], args[7], args[10]
    if any(args[12:]) or acc_dtype != args[0].dtype:
        return NotImplemented
    loss = _logits_entropy((*args[:5], ignore_index), reduction, smoothing)
    nothing = [torch.empty(shape, dtype=args[0].dtype) for shape in ((0, 0), (0, 0), (0,))]
    return (loss, *nothing)


def linear_cross_entropy_unreduced(*args: Any) -> Any:
    """`_linear_cross_entropy_batch_chunked_no_reduction` (..., ignore_index, chunk size,
    policy, acc_dtype)."""
    if args[8] != args[0].dtype:
        return NotImplemented
    return _logits_entropy(args[:6], "none", 0.0)


LINEAR_CROSS_ENTROPY: dict[Any, Callable[..., Any]] = {
    _CHUNKED: linear_cross_entropy_chunked,
    _CHUNKED_UNREDUCED: linear_cross_entropy_unreduced,
}

LOSSES: dict[Any, Callable[..., Any]] = {
    aten.multi_margin_loss.default: multi_margin_loss,
    aten.multilabel_margin_loss.default: multilabel_margin_loss,
    aten.multilabel_margin_loss_forward.default: multilabel_margin_loss_forward,
}
