"""ATen ops torch-mlir cannot lower, rewritten in ops it can, for torch.export's decompositions.

`nn.TransformerEncoderLayer` in eval mode under `no_grad` takes a fused fast path,
`aten._transformer_encoder_layer_fwd`, which torch-mlir has no lowering for; it is rewritten
here as the layer computes it (attention, residuals, layer norms, feed-forward).

`torch.remainder` takes the divisor's sign (Python's %); torch-mlir lowers it to
`stablehlo.remainder`, which takes the dividend's (C's fmod), so a negative operand gave wrong
numbers without a word.  It is rewritten as ATen computes it: fmod, then the divisor added
where the signs differ.

Integer division rounding down (`//`, `floor_divide`) is computed from the exact truncating
division and its remainder: torch-mlir divided in f64, wrong beyond 2**53.

`max`/`min` (along a dimension or not), `amax`/`amin`, `maximum`/`minimum` and the one-sided
clamps of unsigned tensors: torch-mlir starts the reductions at the signed extreme (128 for a
uint8 max) and compares as signed, so values above 127 or a row below 128 gave wrong numbers,
and IREE cannot compile an unsigned `maximum`.  They are computed on a wider signed type and
narrowed back.

`x[index]` with negative indices computed at run time: torch-mlir's gather clamps them to 0
instead of counting from the end, so each integer index is wrapped (`index + size` where
negative) before indexing.

`embedding` with `scale_grad_by_freq` or `sparse`, which torch-mlir cannot lower, is the
plain lookup: the flags change only the gradient.

The variance (and `var_mean`) of no elements is NaN, as in ATen; torch-mlir divided a zero
sum by `0 - correction` and gave -0.0.  Variances and standard deviations are computed on the
values divided by a power of two near their largest magnitude and scaled back, so that they
overflow only where the result does, as ATen's Welford pass (the squares of 3e38 overflowed).
The mean that `var_mean` and `std_mean` return with it is `mean`'s: where a slice holds an
infinity, eager's Welford mean is NaN unless the infinity comes last.  `logcumsumexp` is a
log-depth scan of ATen's log-add-exp, which never overflows; torch-mlir's
`log(cumsum(exp(x)))` gave `inf` from x = 89.  Float rounding down (`//`) is ATen's
`div_floor_floating`, from C's fmod.  A float tensor compared with a Python int is compared
with that int as a float: torch-mlir folded `torch.full_like(x, 2.5) < 0` to True.
Dropout multiplies by its noise as ATen does: a dropped NaN is NaN, and p = 1 gives `x * 0`.

ATen's own kernels where PyTorch's reference differs at infinities and NaN: `addr` multiplies
alpha * vec1 * vec2 left to right, `_softmax_backward_data` multiplies the output by the
difference.  `cdist` and `pdist` (every order, ATen's choice of a matrix product for the
2-norm of many rows, ATen's treatment of a NaN difference in the largest), `searchsorted`
(ATen's binary search, shared with `bucketize`) and `embedding_bag` in sum and mean modes (as
its two kernels compute it), which torch-mlir cannot lower.  `fmin`, `fmax` and the one-sided
clamps by a tensor expand both operands to their common shape first: torch-mlir does not
broadcast them.

`scatter`, `scatter_add`, `gather` and `index_add` with a 0-d tensor take it as the
1-element tensor ATen's kernels take it as (torch-mlir could not lower them, and crashed on
`index_add`).

`threshold_backward` of an integer gradient and a float input: torch-mlir returns the
gradient's dtype where eager promotes to the float one, so mixed dtypes are promoted first.

Ops that take complex numbers and give real ones: torch-mlir lowers them by converting their
input to the real part first (|1+2j| came out 1).  `abs` and the conversions are lowered
correctly by `shlo.frontend.complex_to_stablehlo`, the norms through `abs`
(`shlo.frontend.lowerings`); `refuse_complex_to_real` stops a graph holding any other with a
message instead of wrong numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F  # noqa: N812 (torch's own spelling)
from torch._decomp import decomposition_table
from torch.utils import _pytree as pytree

from shlo.errors import ShloError
from shlo.frontend.attention import ATTENTION
from shlo.frontend.bilinear import BILINEAR
from shlo.frontend.factories import FACTORIES
from shlo.frontend.grid_sampler import GRID_SAMPLER
from shlo.frontend.integer_inputs import (
    TRUTH_REDUCTIONS,
    all_along,
    copysign,
    of_truth_values,
)
from shlo.frontend.interpolation import INTERPOLATION
from shlo.frontend.linalg import LINALG
from shlo.frontend.normalization import NORMALIZATION
from shlo.frontend.pooling import POOLING, averaged_in_f32
from shlo.frontend.ragged import RAGGED, masked_rows
from shlo.frontend.reentry import Reentry
from shlo.frontend.remainders import as_divisor, exact_fmod, fmod
from shlo.frontend.scatter import SCATTER
from shlo.frontend.special_functions import SPECIAL_FUNCTIONS

aten = torch.ops.aten


def _self_attention(
    x: torch.Tensor,
    num_heads: int,
    qkv_weight: torch.Tensor,
    qkv_bias: torch.Tensor,
    proj_weight: torch.Tensor,
    proj_bias: torch.Tensor,
) -> torch.Tensor:
    batch, length, embed = x.shape
    head = embed // num_heads
    q, k, v = F.linear(x, qkv_weight, qkv_bias).chunk(3, dim=-1)
    q, k, v = (t.reshape(batch, length, num_heads, head).transpose(1, 2) for t in (q, k, v))
    scores = torch.matmul(q, k.transpose(-2, -1)) / head**0.5
    attended = torch.matmul(torch.softmax(scores, dim=-1), v)
    return F.linear(attended.transpose(1, 2).reshape(batch, length, embed), proj_weight, proj_bias)


def transformer_encoder_layer_fwd(
    src: torch.Tensor,
    embed_dim: int,
    num_heads: int,
    qkv_weight: torch.Tensor,
    qkv_bias: torch.Tensor,
    proj_weight: torch.Tensor,
    proj_bias: torch.Tensor,
    use_gelu: bool,
    norm_first: bool,
    eps: float,
    norm_weight_1: torch.Tensor,
    norm_bias_1: torch.Tensor,
    norm_weight_2: torch.Tensor,
    norm_bias_2: torch.Tensor,
    ffn_weight_1: torch.Tensor,
    ffn_bias_1: torch.Tensor,
    ffn_weight_2: torch.Tensor,
    ffn_bias_2: torch.Tensor,
    mask: torch.Tensor | None = None,
    mask_type: int | None = None,
) -> Any:
    """The fused layer (batch-first, no mask) in plain ops; masked forms are left as they are."""
    if mask is not None or src.dim() != 3:
        return NotImplemented
    shape = [embed_dim]

    def norm1(t: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(t, shape, norm_weight_1, norm_bias_1, eps)

    def norm2(t: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(t, shape, norm_weight_2, norm_bias_2, eps)

    def attention(t: torch.Tensor) -> torch.Tensor:
        return _self_attention(t, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias)

    def feed_forward(t: torch.Tensor) -> torch.Tensor:
        hidden = F.linear(t, ffn_weight_1, ffn_bias_1)
        hidden = F.gelu(hidden) if use_gelu else F.relu(hidden)
        return F.linear(hidden, ffn_weight_2, ffn_bias_2)

    if norm_first:
        x = src + attention(norm1(src))
        return x + feed_forward(norm2(x))
    x = norm1(src + attention(src))
    return norm2(x + feed_forward(x))


def remainder(dividend: Any, divisor: Any) -> Any:
    """Python's remainder (the divisor's sign), as ATen's CPU kernel computes it."""
    if exact_fmod.inside():
        return NotImplemented  # a float fmod (`shlo.frontend.remainders`)
    if isinstance(divisor, torch.Tensor):
        fmod = torch.fmod(dividend, divisor)
        wrong_sign = (fmod != 0) & ((fmod < 0) != (divisor < 0))
        return torch.where(wrong_sign, fmod + divisor, fmod)
    dividend = dividend.to(torch.result_type(dividend, divisor))
    fmod = torch.fmod(dividend, as_divisor(dividend, divisor))
    wrong_sign = fmod > 0 if divisor < 0 else fmod < 0
    return torch.where(wrong_sign, aten.add.Scalar(fmod, divisor), fmod)


def floor_divide(dividend: Any, divisor: Any, rounding_mode: str | None = None) -> Any:
    """aten.div rounding down: of integers computed exactly (torch-mlir divides integers in
    f64, which is off beyond 2**53), of floats as ATen's `div_floor_floating` computes it
    (from C's fmod, so an infinite dividend gives NaN and `max // -inf` gives -1)."""
    if rounding_mode != "floor" or dividend.dtype.is_complex:
        return NotImplemented
    if dividend.dtype.is_floating_point or isinstance(divisor, float):
        return _floor_divide_floats(dividend, divisor)
    divisor = as_divisor(dividend, divisor)
    quotient = torch.div(dividend, divisor, rounding_mode="trunc")
    rest = dividend - quotient * divisor
    return quotient - ((rest != 0) & ((rest < 0) != (divisor < 0))).to(quotient.dtype)


def _floor_divide_floats(dividend: torch.Tensor, divisor: Any) -> Any:
    dtype = torch.result_type(dividend, divisor)
    if not dtype.is_floating_point:
        return NotImplemented
    a, b = dividend.to(dtype), as_divisor(dividend, divisor, dtype).to(dtype)
    rest = torch.fmod(a, b)
    quotient = (a - rest) / b
    quotient = torch.where((rest != 0) & ((b < 0) != (rest < 0)), quotient - 1, quotient)
    floored = torch.floor(quotient)
    floored = torch.where(quotient - floored > 0.5, floored + 1, floored)
    floored = torch.where(quotient != 0, floored, torch.copysign(torch.zeros_like(a), a / b))
    return torch.where(b == 0, a / b, floored)


def _against_a_float(op: Any) -> Callable[..., Any]:
    """`op` (a comparison with a number) of a float tensor and a Python int, as of that int
    made a float: torch-mlir's folder compares a constant float tensor with the int 0 wrongly
    (`torch.full_like(x, 2.5) < 0` folded to True)."""

    def run(x: torch.Tensor, other: Any) -> Any:
        if not x.is_floating_point() or type(other) is not int:
            return NotImplemented
        return op(x, float(other))

    return run


def equal_floats(a: Any, b: Any) -> Any:
    """aten.eq.Tensor of float or complex tensors as the negation of `!=`: torch-mlir's folder
    makes `x == x` true everywhere, NaN included (and merges equal operands before it)."""
    if not all(isinstance(t, torch.Tensor) for t in (a, b)):
        return NotImplemented
    if any(t.dtype.is_complex for t in (a, b)):  # equal parts
        a, b = (torch.view_as_real(t.to(torch.result_type(a, b))) for t in (a, b))
        return torch.logical_not(aten.ne.Tensor(a, b).any(-1))
    if not any(t.dtype.is_floating_point for t in (a, b)):
        return NotImplemented
    return torch.logical_not(aten.ne.Tensor(a, b))


def sort_stable(
    x: torch.Tensor, *, stable: bool | None = None, dim: int = -1, descending: bool = False
) -> Any:
    """aten.sort with `stable=`, which torch-mlir cannot lower, as the plain sort: the
    frontend's `shlo-torch-nan-order` makes every sort stable, as eager's is."""
    return aten.sort.default(x, dim, descending)


class RefusedOp(ShloError):
    """An op torch-mlir would lower to wrong numbers, and shlo cannot lower correctly."""


# Ops that turn complex numbers into real ones and are lowered correctly: conversions (the
# real part, or its parts side by side) and the magnitude.
_COMPLEX_TO_REAL_LOWERED = frozenset({
    aten._to_copy.default, aten.view_as_real.default, aten.real.default, aten.imag.default,
    aten.abs.default,
})  # fmt: skip


def refuse_complex_to_real(graph: torch.fx.Graph) -> None:
    """Raise `RefusedOp` for the first op that takes a complex tensor and returns a real one,
    other than those lowered correctly, naming it and where the model calls it."""
    for node in graph.nodes:
        if node.op != "call_function" or node.target in _COMPLEX_TO_REAL_LOWERED:
            continue
        inputs = [arg.meta.get("val") for arg in node.all_input_nodes]
        output = node.meta.get("val")
        takes_complex = any(isinstance(v, torch.Tensor) and v.is_complex() for v in inputs)
        if takes_complex and isinstance(output, torch.Tensor) and output.is_floating_point():
            raise RefusedOp(
                f"{node.target} of a complex tensor is not supported (at {call_site(node)}): "
                "torch-mlir lowers it on the real part alone, which would give wrong numbers"
            )


def call_site(node: torch.fx.Node) -> str:
    """`file:line` of the model's code that made `node`, from the trace export recorded."""
    frames = re.findall(r'File "(.+?)", line (\d+)', node.meta.get("stack_trace") or "")
    return f"{frames[-1][0]}:{frames[-1][1]}" if frames else "unknown location"


_INDEXING = Reentry("indexing")


def index_from_the_end(x: torch.Tensor, indices: list[Any]) -> Any:
    """aten.index.Tensor with negative integer indices counted from the end, as eager does;
    a boolean mask of the leading dims picks rows (`masked_rows`)."""
    if len(indices) == 1 and indices[0] is not None and indices[0].dtype == torch.bool:
        return masked_rows(x, indices[0])
    if _INDEXING.inside() or any(i is not None and i.dtype == torch.bool for i in indices):
        return NotImplemented  # the op itself (masks index by position, never negatively)
    wrapped = [
        None if index is None else torch.where(index < 0, index + x.shape[dim], index)
        for dim, index in enumerate(indices)
    ]
    with _INDEXING.entered():
        return aten.index.Tensor(x, wrapped)


def embedding_forward(
    weight: torch.Tensor,
    indices: torch.Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Any:
    """aten.embedding with `scale_grad_by_freq` or `sparse`, which torch-mlir cannot lower, as
    the plain lookup: both change only the gradient, not the rows looked up."""
    if not (scale_grad_by_freq or sparse):
        return NotImplemented
    return aten.embedding.default(weight, indices, padding_idx)


def threshold_backward_promoted(grad: torch.Tensor, x: torch.Tensor, threshold: Any) -> Any:
    """aten.threshold_backward in the promoted dtype of its two tensors, as eager computes it."""
    grad = grad.to(torch.result_type(grad, x))
    return torch.where(x <= threshold, torch.zeros_like(grad), grad)


# Unsigned and boolean tensors order right on these signed types.
_WIDER_SIGNED = {
    torch.uint8: torch.int16,
    torch.uint16: torch.int32,
    torch.uint32: torch.int64,
    torch.bool: torch.int32,
}


def _widened(op: Any) -> Callable[..., Any]:
    """`op` of unsigned or boolean tensors computed on the wider signed type they fit in, its
    values narrowed back (indices it returns stay as they are; a boolean is whether nonzero)."""

    def run(*args: Any, **kwargs: Any) -> Any:
        unsigned = {a.dtype for a in args if isinstance(a, torch.Tensor)} & _WIDER_SIGNED.keys()
        if not unsigned:
            return NotImplemented  # other dtypes lower correctly as they are
        (dtype,) = unsigned
        wider = _WIDER_SIGNED[dtype]
        result = op(*(a.to(wider) if isinstance(a, torch.Tensor) else a for a in args), **kwargs)
        narrowed = [r.to(dtype) if r.dtype == wider else r for r in pytree.tree_leaves(result)]
        return narrowed[0] if isinstance(result, torch.Tensor) else tuple(narrowed)

    return run


# Ops that order unsigned values: torch-mlir starts their reductions at the signed extreme
# (128 for a uint8 max) and IREE cannot compile an unsigned `maximum` or `minimum`; of
# booleans, amax gave False where eager gives True.
_UNSIGNED_ORDER = (
    aten.max.dim, aten.min.dim, aten.amax.default, aten.amin.default, aten.max.default,
    aten.min.default, aten.maximum.default, aten.minimum.default, aten.clamp_min.default,
    aten.clamp_max.default, aten.aminmax.default, aten.argmax.default, aten.argmin.default,
    aten.topk.default,
)  # fmt: skip


# Reductions along a dimension that torch-mlir crashes on (SIGSEGV: `sum(x, 0, keepdim=True)`)
# or refuses for a 0-d tensor, whose one dimension is 0 or -1.
_ALONG_THE_ONE_DIMENSION = (
    aten.sum.dim_IntList, aten.mean.dim, aten.prod.dim_int, aten.var.correction,
    aten.any.dim, aten.any.dims, aten.all.dim, aten.cumsum.default, aten._softmax.default,
)  # fmt: skip
# Indexing ops that torch-mlir cannot lower (or crashes on: `index_add`) with a 0-d tensor,
# which eager takes as a 1-element one: op -> the argument whose shape the result has.
_INDEXING_ALONG_THE_ONE_DIMENSION = {
    aten.scatter.src: 0, aten.scatter.value: 0, aten.scatter_add.default: 0,
    aten.index_add.default: 0, aten.gather.default: 2,
}  # fmt: skip


# Binary ops whose operands torch-mlir does not broadcast (a type inference error, or an abort,
# where their shapes differ).
_UNBROADCAST = (aten.fmin.default, aten.fmax.default, aten.clamp_min.Tensor, aten.clamp_max.Tensor)


def _broadcast_first(op: Any) -> Callable[..., Any]:
    """`op` of its two tensors expanded to their common shape first."""

    def run(a: torch.Tensor, b: torch.Tensor) -> Any:
        shape = torch.Size(torch.broadcast_shapes(a.shape, b.shape))  # type: ignore[no-untyped-call]
        if a.shape == b.shape == shape:
            return NotImplemented  # lowered as it is
        return op(a.expand(shape), b.expand(shape))

    return run


def _one_element(op: Any, otherwise: Callable[..., Any]) -> Callable[..., Any]:
    """`op` of 0-d tensors only as `op` of their 1-element reshape, each result reshaped back
    to 0-d (what eager returns, `keepdim` or not); of any other tensors (`minimum` of a 0-d
    tensor and a matrix among them), `otherwise`."""

    def run(x: Any, *args: Any, **kwargs: Any) -> Any:
        wider = any(isinstance(a, torch.Tensor) and a.dim() > 0 for a in args)
        if wider or not (isinstance(x, torch.Tensor) and x.dim() == 0):
            return otherwise(x, *args, **kwargs)
        result = op(x.reshape(1), *args, **kwargs)
        return pytree.tree_map(
            lambda r: r.reshape(()) if isinstance(r, torch.Tensor) else r, result
        )

    return run


def _of_one_element_tensors(op: Any, shaped_like: int) -> Callable[..., Any]:
    """`op` with 0-d tensors among its tensors as `op` of their 1-element reshapes (as ATen's
    kernels take them), its result reshaped to the shape of argument `shaped_like`; of any
    other tensors, PyTorch's decomposition of `op` where it has one, else the op as it is."""
    otherwise = decomposition_table.get(op, _as_it_is)

    def run(*args: Any, **kwargs: Any) -> Any:
        tensors = [a for a in pytree.tree_leaves((args, kwargs)) if isinstance(a, torch.Tensor)]
        if all(t.dim() for t in tensors):
            return otherwise(*args, **kwargs)
        shape = args[shaped_like].shape
        args, kwargs = pytree.tree_map_only(
            torch.Tensor, lambda t: t.reshape(1) if t.dim() == 0 else t, (args, kwargs)
        )
        return pytree.tree_map_only(torch.Tensor, lambda r: r.reshape(shape), op(*args, **kwargs))

    return run


def _as_it_is(*args: Any, **kwargs: Any) -> Any:
    return NotImplemented


def _reduced(x: torch.Tensor, dim: Any) -> list[int]:
    """The dimensions a reduction's `dim` names (none: every one), counted from 0."""
    return list(range(x.dim())) if not dim else [d % x.dim() for d in dim]


def variance_of_nothing(
    x: torch.Tensor,
    dim: Any = None,
    *,
    correction: Any = None,
    keepdim: bool = False,
) -> Any:
    """The variance (and mean, for `var_mean`) of no elements: NaN in ATen, where torch-mlir's
    sum over `count - correction` gave -0.0.  Any other count is lowered as it is."""
    dims = _reduced(x, dim)
    if math.prod(x.shape[d] for d in dims):
        return NotImplemented
    shape = [1 if d in dims else n for d, n in enumerate(x.shape)]
    if not keepdim:
        shape = [n for d, n in enumerate(x.shape) if d not in dims]
    return torch.full(shape, float("nan"), dtype=x.dtype)


_scaling = Reentry("scaling_variance")


def _power_of_two_scale(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    """Per slice reduced over `dims` (kept as size-1 dimensions), the power of two at or below
    its largest finite nonzero magnitude, else 1: dividing by it keeps a sum of squares in
    range, and multiplying back is exact."""
    largest = torch.amax(x.abs(), dims, keepdim=True)
    usable = torch.isfinite(largest) & (largest > 0)
    # log2 of the largest float rounds up to its exponent + 1, whose power overflows
    top = math.floor(math.log2(torch.finfo(x.dtype).max))
    exponent = torch.floor(torch.log2(largest)).clamp(max=top)
    return torch.where(usable, torch.exp2(exponent), 1.0).to(x.dtype)


def _scaled_spread(x: torch.Tensor, dim: Any, correction: Any, keepdim: bool, root: bool) -> Any:
    """The variance (`root`: the standard deviation) of `x / s`, times `s * s` (times `s`),
    `s` the power of two at or below the largest magnitude reduced: ATen's Welford pass (in
    float64 for float32) never overflows where the result itself does not, but the squares of
    torch-mlir's (demoted to float32) did, so the std of a row holding 3e38 came out inf
    instead of 1.5e38.  Of no elements, NaN."""
    nothing = variance_of_nothing(x, dim, correction=correction, keepdim=keepdim)
    if nothing is not NotImplemented or _scaling.inside() or not x.is_floating_point():
        return nothing
    dims = _reduced(x, dim)
    scale = _power_of_two_scale(x, dims)
    with _scaling.entered():
        scaled = aten.var.correction(x / scale, dims, correction=correction, keepdim=True)
    result = torch.sqrt(scaled) * scale if root else scaled * scale * scale
    return result if keepdim else result.squeeze(dims)


def variance(
    x: torch.Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False
) -> Any:
    return _scaled_spread(x, dim, correction, keepdim, root=False)


def deviation(
    x: torch.Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False
) -> Any:
    return _scaled_spread(x, dim, correction, keepdim, root=True)


def _with_mean(root: bool) -> Callable[..., Any]:
    """`var_mean` (`root`: `std_mean`): the scaled spread and the mean; of no elements, NaN."""

    def run(
        x: torch.Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False
    ) -> Any:
        spread = _scaled_spread(x, dim, correction, keepdim, root)
        if spread is NotImplemented or not x.numel():
            return spread if spread is NotImplemented else (spread, spread.clone())
        dims = _reduced(x, dim)
        mean = _welford_mean(x, dims)
        return spread, mean if keepdim else mean.squeeze(dims)

    return run


def _welford_mean(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    """The mean over `dims` (kept) as ATen's Welford pass gives it beside the variance: never
    overflowing where the mean does not (of `x / s`, times `s`), and NaN where an infinity
    or NaN comes before the last element (its running mean then takes inf - inf)."""
    scale = _power_of_two_scale(x, dims)
    mean = torch.mean(x / scale, dims, keepdim=True) * scale
    last = torch.ones((), dtype=torch.bool)
    for d in dims:
        shape = [-1 if i == d else 1 for i in range(x.dim())]
        last = last & (torch.arange(x.shape[d]) == x.shape[d] - 1).reshape(shape)
    early = torch.any(~torch.isfinite(x) & ~last, dims, keepdim=True)
    return torch.where(early, float("nan"), mean)


def _log_add_exp(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log(exp(a) + exp(b)) as ATen's `_log_add_exp_helper` computes it: from the larger, so
    nothing overflows; two equal infinities give themselves; NaN propagates."""
    low, high = torch.minimum(a, b), torch.maximum(a, b)
    equal_infinities = (low == high) & ~torch.isfinite(low)
    return torch.where(equal_infinities, a, high + torch.log1p(torch.exp(low - high)))


def logcumsumexp(x: torch.Tensor, dim: int) -> Any:
    """A running log-sum-exp as a log-depth scan of `_log_add_exp` (each step combines every
    element with the one `offset` before it): torch-mlir's `log(cumsum(exp(x)))` overflowed
    from x = 89 in float32 (`inf` for `[100, 101]`)."""
    if not x.is_floating_point() or x.dim() == 0:
        return NotImplemented
    dim %= x.dim()
    length, result, offset = x.shape[dim], x, 1
    while offset < length:
        shape = list(x.shape)
        shape[dim] = offset
        before = torch.cat([torch.full(shape, -math.inf, dtype=x.dtype), result], dim)
        result = _log_add_exp(result, before.narrow(dim, 0, length))
        offset *= 2
    return result


def dropout(x: torch.Tensor, p: float, train: bool | None) -> Any:
    """Dropout in training as ATen's kernel computes it: `x` times a noise of 0 or
    1 / (1 - p), so a dropped NaN or infinity is NaN (torch-mlir selected 0 for it), and
    with p = 1 every element is multiplied by zero (PyTorch's decomposition gave all NaN)."""
    if not train or p == 0 or not x.is_floating_point():
        return NotImplemented
    if p == 1:
        return x * torch.zeros((), dtype=x.dtype), torch.zeros(x.shape, dtype=torch.bool)
    kept = torch.rand_like(x) < 1 - p
    return x * (kept.to(x.dtype) / (1 - p)), kept


def addr(
    x: torch.Tensor, vec1: torch.Tensor, vec2: torch.Tensor, *, beta: Any = 1, alpha: Any = 1
) -> Any:
    """ATen's kernel, beta * x + alpha * vec1[i] * vec2[j], its products taken left to right:
    PyTorch's reference forms the outer product first, which overflows to infinity where
    alpha * vec1 times vec2 does not.  With beta 0, x is not read (its NaN dropped)."""
    if not (x.is_floating_point() and x.dtype == vec1.dtype == vec2.dtype):
        return NotImplemented  # PyTorch's
    product = (vec1 * alpha).unsqueeze(-1) * vec2
    return product if beta == 0 else beta * x + product  # x broadcasts to the product's shape


def softmax_backward_data(
    grad: torch.Tensor, output: torch.Tensor, dim: int, input_dtype: torch.dtype
) -> torch.Tensor:
    """ATen's kernel, output * (grad - sum(grad * output)): PyTorch's reference subtracts the
    two products, grad * output - output * sum, which is inf - inf where the kernel's
    difference times the output is an infinity."""
    found = output * (grad - torch.sum(grad * output, dim, keepdim=True))
    return found.to(input_dtype)


def _norms(d: torch.Tensor, p: float, largest: Callable[[torch.Tensor], torch.Tensor]) -> Any:
    """ATen's p-norms of the last dimension of `d` (differences' magnitudes): 0 the count of
    nonzero ones (NaN where one is NaN, as ATen's min(ceil(d), 1)), infinity by `largest`."""
    if p == 0:
        return torch.clamp_max(torch.ceil(d), 1).sum(-1)
    if p == 1 or not d.numel():
        return d.sum(-1)
    if p == 2:
        return torch.sqrt(torch.square(d).sum(-1))
    if math.isinf(p):
        return largest(d)
    return torch.pow(torch.pow(d, p).sum(-1), 1 / p)


def cdist_forward(x1: torch.Tensor, x2: torch.Tensor, p: float, mode: int | None) -> Any:
    """ATen's `_cdist_forward`: the 2-norm of rows past 25 (or always, `mode` 1; never, 2) as
    its matrix product of padded rows (PyTorch's `_euclidean_dist`), any other as the norm of
    each pair's |x1 - x2|, whose largest leaves a NaN difference out as ATen's scalar max does;
    empty rows give zeros."""
    if not x1.is_floating_point():
        return NotImplemented  # torch-mlir's
    if p == 2 and (mode == 1 or (mode in (0, None) and max(x1.shape[-2], x2.shape[-2]) > 25)):
        return decomposition_table[aten._euclidean_dist.default](x1, x2)
    d = torch.abs(x1.unsqueeze(-2) - x2.unsqueeze(-3))
    return _norms(d, p, lambda d: torch.where(torch.isnan(d), 0, d).amax(-1))


def pdist_forward(x: torch.Tensor, p: float = 2) -> Any:
    """ATen's `_pdist_forward`: the norm of each pair of rows i < j, in that order, whose
    largest keeps a NaN (its vectorized max does)."""
    if not x.is_floating_point():
        return NotImplemented  # torch-mlir's
    rows, columns = torch.triu_indices(x.shape[0], x.shape[0], 1)
    d = torch.abs(x[rows] - x[columns])
    return _norms(d, p, lambda d: d.amax(-1))


_OVERFLOWING_SAMPLE_WEIGHT = (
    "embedding_bag: a row times its per-sample weight overflows: ATen's kernels fuse that "
    "multiply with the bag's sum (a fused multiply-add, whose product never overflows), so "
    "shlo does not compute it"
)


def embedding_bag(
    weight: torch.Tensor,
    indices: torch.Tensor,
    offsets: torch.Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: torch.Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int = -1,
) -> Any:
    """ATen's `_embedding_bag` in sum (0) and mean (1) modes: each bag's rows (scaled by
    `per_sample_weights`; 16-bit ones in float32), those of `padding_idx` left out, added up
    or averaged (an empty bag is zeros).  With `include_last_offset`, ATen's two kernels
    differ and so does this: its fast one (float32 and 16-bit weights, no padding) ends the
    last bag at the last offset and still divides a mean by the count of indices from the
    bag's start to the end; the other runs the last bag to the end.  The other results as
    ATen gives them: each index's bag (none on the sum's fast path), and in mean mode each
    bag's count (twice); in sum mode those two are zeros (ATen leaves them unset).  Max mode
    is refused, and so is, at run time, a finite row times a finite per-sample weight that
    overflows, whose sum ATen's fused multiply-add keeps finite or its infinity's sign."""
    if mode not in (0, 1) or not weight.is_floating_point():
        return NotImplemented  # torch-mlir's
    fast = padding_idx < 0 and weight.dtype in (torch.float32, torch.float16, torch.bfloat16)
    if indices.dim() == 2:  # a bag per row
        offsets = torch.arange(0, indices.numel(), indices.shape[1])
        indices, include_last_offset = indices.reshape(-1), False
    count = offsets.numel() - int(include_last_offset)
    positions = torch.arange(indices.numel())
    bag = _bound(offsets[:count], positions, True) - 1
    kept = indices != padding_idx
    if fast and include_last_offset:
        kept = kept & (positions < offsets[-1])
    wide = torch.float32 if weight.dtype in (torch.float16, torch.bfloat16) else weight.dtype
    rows = weight[indices].to(wide)
    kept_rows = kept.unsqueeze(-1)
    if per_sample_weights is not None:
        scales = per_sample_weights.reshape(-1, 1).to(wide)
        scaled = rows * scales
        overflows = scaled.isinf() & rows.isfinite() & scales.isfinite() & kept_rows
        torch._assert_async(~overflows.any(), _OVERFLOWING_SAMPLE_WEIGHT)
        rows = scaled
    rows = torch.where(kept_rows, rows, 0)
    # the rows and the count of each bag's indices (kept ones, or all on the fast path) added
    # up in one scatter, the count exact to 2**24 a bag
    counted = (torch.ones_like(kept) if fast else kept).to(wide).unsqueeze(-1)
    sums = torch.zeros(count, rows.shape[1] + 1, dtype=wide).index_add(
        0, bag, torch.cat([rows, counted], -1)
    )
    output, sizes = sums[:, :-1], sums[:, -1]
    if mode == 1:
        output = output / torch.clamp_min(sizes, 1).unsqueeze(-1)
        size = sizes.long()
        return output.to(weight.dtype), bag, size, size.clone()
    zeros = torch.zeros(count, dtype=torch.int64)
    return output.to(weight.dtype), bag[:0] if fast else bag, zeros, zeros.clone()


def embedding_bag_wrapping(weight: torch.Tensor, *args: Any) -> Any:
    """`embedding_bag.padding_idx`: `embedding_bag` with its padding index (the last argument:
    None for none, or counted from the end) as `_embedding_bag` takes it."""
    *rest, padding_idx = args
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        padding_idx += weight.shape[0]
    bag: Callable[..., Any] = embedding_bag  # `rest` holds its arguments up to the last
    return bag(weight, *rest, padding_idx)


def _bound(boundaries: torch.Tensor, values: torch.Tensor, right: bool) -> torch.Tensor:
    """ATen's binary search (`cus_lower_bound`, `cus_upper_bound`) of each value in the last
    dimension of `boundaries` (1-d, or one row per leading index of `values`), every element
    stepping through the same midpoints as ATen's loop, so that NaN and unsorted boundaries
    give eager's index."""
    count = boundaries.shape[-1]
    flat = values.reshape(1) if values.dim() == 0 else values
    start = torch.zeros(flat.shape, dtype=torch.int64)
    end = start + count
    for _ in range(math.ceil(math.log2(count + 1))):
        searching = start < end
        mid = torch.where(searching, start + (end - start) // 2, 0)
        found = boundaries[mid] if boundaries.dim() == 1 else torch.gather(boundaries, -1, mid)
        after = ~(found > flat) if right else ~(found >= flat)
        start = torch.where(searching & after, mid + 1, start)
        end = torch.where(searching & ~after, mid, end)
    return start.reshape(values.shape)


def bucketize(
    x: torch.Tensor, boundaries: torch.Tensor, *, out_int32: bool = False, right: bool = False
) -> torch.Tensor:
    """ATen's search (torch-mlir counted the boundaries below each value, which differs where
    a boundary or the value is NaN or the boundaries are unsorted)."""
    return _bound(boundaries, x, right).to(torch.int32 if out_int32 else torch.int64)


def searchsorted(
    sequence: torch.Tensor,
    values: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: torch.Tensor | None = None,
) -> torch.Tensor:
    """ATen's search in a sorted sequence (1-d, or a row per leading index of `values`), read
    through `sorter` where given."""
    if not isinstance(values, torch.Tensor):  # of the type the two promote to, as in ATen
        values = torch.full((), values, dtype=torch.result_type(sequence, values))
    boundaries = sequence if sorter is None else torch.gather(sequence, -1, sorter)
    found = _bound(boundaries, values, right or side == "right")
    return found.to(torch.int32 if out_int32 else torch.int64)


DECOMPOSITIONS: dict[Any, Callable[..., Any]] = {
    aten.index.Tensor: index_from_the_end,
    aten.eq.Tensor: equal_floats,
    aten.threshold_backward.default: threshold_backward_promoted,
    aten.embedding.default: embedding_forward,
    **{op: _one_element(op, _as_it_is) for op in _ALONG_THE_ONE_DIMENSION},
    **{op: _of_one_element_tensors(op, k) for op, k in _INDEXING_ALONG_THE_ONE_DIMENSION.items()},
    **{op: _one_element(op, _widened(op)) for op in _UNSIGNED_ORDER},
    **{op: _broadcast_first(op) for op in _UNBROADCAST},
    **{op: _one_element(op, of_truth_values(op)) for op in TRUTH_REDUCTIONS},
    aten.copysign.Tensor: copysign,
    aten.copysign.Scalar: copysign,
    aten.all.dims: _one_element(aten.all.dims, all_along),
    aten.mean.dim: _one_element(aten.mean.dim, averaged_in_f32(aten.mean.dim)),
    aten.mean.default: averaged_in_f32(aten.mean.default),
    aten.bucketize.Tensor: bucketize,
    aten.searchsorted.Tensor: searchsorted,
    aten.searchsorted.Scalar: searchsorted,
    aten._cdist_forward.default: cdist_forward,
    aten._pdist_forward.default: pdist_forward,
    aten.embedding_bag.padding_idx: embedding_bag_wrapping,
    aten._embedding_bag.default: embedding_bag,
    aten._embedding_bag_forward_only.default: embedding_bag,
    aten.addr.default: addr,
    aten._softmax_backward_data.default: softmax_backward_data,
    **{
        op: _against_a_float(op)
        for op in (aten.lt.Scalar, aten.le.Scalar, aten.gt.Scalar, aten.ge.Scalar)
        + (aten.eq.Scalar, aten.ne.Scalar)
    },
    aten.logcumsumexp.default: logcumsumexp,
    aten.native_dropout.default: dropout,
    aten.var.correction: _one_element(aten.var.correction, variance),
    aten.std.correction: _one_element(aten.std.correction, deviation),
    aten.var_mean.correction: _with_mean(root=False),
    aten.std_mean.correction: _with_mean(root=True),
    aten._transformer_encoder_layer_fwd.default: transformer_encoder_layer_fwd,
    aten.remainder.Scalar: remainder,
    aten.remainder.Tensor: remainder,
    aten.fmod.Tensor: fmod,
    aten.fmod.Scalar: fmod,
    aten.sort.stable: sort_stable,
    aten.div.Tensor_mode: floor_divide,
    aten.div.Scalar_mode: floor_divide,
    **ATTENTION,
    **POOLING,
    **RAGGED,
    **NORMALIZATION,
    **BILINEAR,
    **FACTORIES,
    **SCATTER,
    **INTERPOLATION,
    **GRID_SAMPLER,
    **LINALG,
    **SPECIAL_FUNCTIONS,
}
