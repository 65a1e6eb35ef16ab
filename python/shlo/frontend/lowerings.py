"""ATen ops torch-mlir has no StableHLO lowering for, written in ops it lowers.

Where torch already ships a decomposition into lowerable ops (nearest upsampling by scale,
`unfold`, `diagonal`, `cumprod`), its own is used; the rest are written here in the shape eager
computes them, so the module stays StableHLO from end to end:

- `prims.prod` (what torch's `cumprod` and `prod` decompositions reach) as ATen's `prod`, one
  dimension at a time.
- `erf` and `reciprocal` of an integer tensor on the float it promotes to.
- `x >> n`, `x << n` and `norm(x, p)` as the ops they stand for (`bitwise_right_shift` by a
  0-d tensor, `linalg.vector_norm`).
- `unfold` of a 0-d tensor as the 1-element tensor it unfolds like.
- `nonzero_static` as a binary search of the running count of nonzero elements.
- `kthvalue` as a sort and a pick along the dimension; `median` and `nanmedian` (of all
  values or along a dimension, with the index ATen's CPU kernel picks) likewise.
- `isclose` as ATen defines it: equal values (infinities included) or a finite `|a - b|` at
  most `atol + |rtol * b|`; NaNs close to each other only with `equal_nan`.
- `upsample_nearest2d` with an output size, as a gather of each output pixel's source, and
  its backward, the sum of the gradient over each input pixel's copies, as a scatter-add to
  those sources.
- The `prims` views a model may call directly (`squeeze`, `view_of`, `split_dim`), which
  torch-mlir's importer refuses as custom ops with aliasing outputs, as the ATen views they are.
- `linalg_vector_norm` of a 0-d tensor, as the norm of the 1-element vector it holds; the
  1- and 2-norms of a real tensor as a sum of `|x|` and the square root of a sum of `x * x`,
  as ATen computes them, not through `pow`.
- The norms of a complex tensor as the same norms of its `abs`, which
  `shlo.frontend.complex_to_stablehlo` lowers to StableHLO's complex `abs` (torch-mlir would
  take the real part alone), its `angle` as `atan2` of its parts, and its conjugate
  (`_conj_physical`, which torch's `ihfft` decompositions reach) from its parts.
- `det` and `slogdet` of float matrices up to 64x64, from getrf's LU factorization
  (`shlo.frontend.linalg`): the sign of the row swaps times U's diagonal.
- A convolution with padding (or a transposed one) in f32, f16 or bf16 checks at run time that
  its weights are finite where the kernel eager picks for it (ATen's own choice, on this
  host) skips the padding's zeros: oneDNN and the slow transposed kernels do, the slow
  im2col kernels and the compiled convolution multiply them (an infinite weight gives NaN).
- A transposed convolution with output padding, or in f64, as the whole transposed
  convolution and the window of it the padding selects (torch-mlir sizes the output wrongly
  with output padding); the whole one in f64 as ATen's products placed and added
  (`shlo.frontend.transposed_convolution`).
- Slices and slice updates with bounds past the ends, clamped first as Python clamps them
  (torch-mlir computed `x[:-8]` of 6 rows as all 6).
- The trace of an empty matrix (0; torch's own otherwise), `index_select` by a 0-d index
  (as a 1-element one), and `clamp` of an integer tensor by float bounds (on the float dtype
  it promotes to).
- `conv_tbc` as the 1-d convolution it is, between layout permutations.
- `fft.rfft` (a product with the DFT matrix in torch-mlir) checks at run time that its
  result is finite: eager's FFT places infinities and NaN by its butterflies (the
  first bin's imaginary part stays 0), which no matrix product follows.
- `_scaled_mm` with per-tensor or per-row float32 scales as ATen's CPU kernel computes it: the
  product in f32, scaled, then rounded once to the output dtype.
- `quantized_decomposed`'s per-channel `quantize` and `dequantize` as torch's own Python
  definitions, which eager runs: torch-mlir could not lower the first, lowered the second for
  signed tensors only, and folded it into a quantized convolution it cannot lower when grouped.
- `convolution_backward` (of a convolution that is not transposed) as the convolutions it
  stands for: the transposed convolution of the gradient for the input's, the input
  correlated with the gradient for the weight's, and a sum for the bias'.

`float(t)`, `int(t)` and `t.item()` of a one-element tensor of any rank read it as the 0-d
tensor it reshapes to (torch-mlir lowers the read of a 0-d tensor only).

A result with no elements is known from its shape alone: `empty_results_as_constants` puts an
`empty` of that shape and dtype in place of the op that computes it (torch-mlir failed to lower
`unfold`, `repeat`, `tile` and `stack` of empty tensors).

`float(n)` of an integer that came from a tensor (`float(int(t))`), as TorchDynamo traces it
(`torch.sym_float`), has no import in torch-mlir; `scalar_casts_as_items` makes it
`aten.Float.Scalar`, which torch-mlir imports and lowers.

torch.export never hands `upsample_nearest2d` with an output size to a decomposition (neither
torch's own nor one given to `run_decompositions`), and its functionalization fails on the
`prims` views before any decomposition is tried, so `write_out_before_decomposing` puts the
function in their place in the exported graph and the retrace runs it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

import torch
from torch._decomp import decomposition_table
from torch.ao.quantization.fx import _decomposed as decomposed

from shlo.frontend.linalg import lu_factorable, lu_factored
from shlo.frontend.losses import LINEAR_CROSS_ENTROPY, LOSSES
from shlo.frontend.reentry import Reentry
from shlo.frontend.scatter import row_major_coordinates
from shlo.frontend.transposed_convolution import scattered_products

aten = torch.ops.aten
prims = torch.ops.prims
quantized = torch.ops.quantized_decomposed

_FROM_TORCH = (
    aten.upsample_nearest2d.vec,
    aten.diagonal.default,
    aten.cumprod.default,
)


def prod(x: torch.Tensor, dims: Sequence[int], output_dtype: Any = None) -> torch.Tensor:
    for dim in sorted((d % max(x.dim(), 1) for d in dims), reverse=True):
        x = aten.prod.dim_int(x, dim)
    return x if output_dtype is None else x.to(output_dtype)


def shift_right(x: torch.Tensor, bits: Any) -> torch.Tensor:
    return cast(
        torch.Tensor, aten.bitwise_right_shift.Tensor(x, torch.scalar_tensor(bits, dtype=x.dtype))
    )


def shift_left(x: torch.Tensor, bits: Any) -> torch.Tensor:
    return cast(
        torch.Tensor, aten.bitwise_left_shift.Tensor(x, torch.scalar_tensor(bits, dtype=x.dtype))
    )


def norm(x: torch.Tensor, p: Any = 2) -> torch.Tensor:
    return cast(torch.Tensor, torch.linalg.vector_norm(x, 2 if p is None else p))


def _on_floats(op: Any) -> Callable[..., Any]:
    """`op` of an integer tensor computed on the default float dtype, as ATen promotes it
    (torch-mlir lowers these ops for float inputs only)."""

    def run(x: torch.Tensor) -> Any:
        if x.dtype.is_floating_point or x.dtype.is_complex:
            return NotImplemented  # lowered as it is
        return op(x.to(torch.get_default_dtype()))

    return run


def unfold(x: torch.Tensor, dimension: int, size: int, step: int) -> torch.Tensor:
    if x.dim() == 0:  # torch's decomposition takes an as_strided view, which crashes torch-mlir
        return x.reshape(1)[:size]
    return cast(torch.Tensor, decomposition_table[aten.unfold.default](x, dimension, size, step))


def kthvalue(
    x: torch.Tensor, k: int, dim: int = -1, keepdim: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    values, indices = torch.sort(x, dim=dim)
    picked = (values.narrow(dim, k - 1, 1), indices.narrow(dim, k - 1, 1))
    return picked if keepdim else (picked[0].squeeze(dim), picked[1].squeeze(dim))


def _median(x: torch.Tensor, dim: int, ignore_nan: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The median along `dim` and its index, kept as a dim of size 1, as ATen's CPU kernel
    picks them: the lower middle of the values ordered by value and then by index (a stable
    sort, NaN last); for `median` a slice holding NaN gives its first NaN, for `nanmedian`
    the middle of the values other than NaN (the first NaN when all are)."""
    values, order = torch.sort(x, dim=dim, stable=True)
    nan = torch.isnan(x)
    size = x.shape[dim]
    if ignore_nan:
        middle = torch.clamp(size - nan.sum(dim, keepdim=True) - 1, min=0) // 2
        return torch.gather(values, dim, middle), torch.gather(order, dim, middle)
    middle_value = values.narrow(dim, (size - 1) // 2, 1)
    middle_index = order.narrow(dim, (size - 1) // 2, 1)
    positions = torch.arange(size).reshape([-1 if d == dim else 1 for d in range(x.dim())])
    first_nan = torch.where(nan, positions, size).amin(dim, keepdim=True)
    has_nan = first_nan < size
    return (
        torch.where(has_nan, math.nan, middle_value),
        torch.where(has_nan, first_nan, middle_index),
    )


def median_along(
    ignore_nan: bool,
) -> Callable[[torch.Tensor, int, bool], Any]:
    def run(x: torch.Tensor, dim: int, keepdim: bool = False) -> Any:
        if x.dim() == 0:
            return x.clone(), torch.zeros((), dtype=torch.int64)
        dim = dim % x.dim()
        value, index = _median(x, dim, ignore_nan)
        return (value, index) if keepdim else (value.squeeze(dim), index.squeeze(dim))

    return run


def median_of_all(ignore_nan: bool) -> Callable[[torch.Tensor], Any]:
    def run(x: torch.Tensor) -> Any:
        if x.numel() == 0:
            if not x.is_floating_point():
                return NotImplemented
            return torch.full((), math.nan, dtype=x.dtype)
        return _median(x.reshape(-1), 0, ignore_nan)[0].reshape(())

    return run


def nonzero_static(x: torch.Tensor, *, size: int, fill_value: int = -1) -> Any:
    """The coordinates of the first `size` nonzero elements in row-major order, padded with
    `fill_value`: the k-th is where the running count of nonzero elements first reaches
    k + 1 (a binary search of the count)."""
    if not isinstance(size, int):
        return NotImplemented
    nonzero = (x != 0).reshape(-1).to(torch.int64)
    if nonzero.numel() == 0 or x.dim() == 0:  # nothing to find, or no coordinates
        return torch.full((size, x.dim()), fill_value, dtype=torch.int64)
    counts = torch.cumsum(nonzero, 0)
    wanted = torch.arange(1, size + 1, dtype=torch.int64)
    flat = torch.searchsorted(counts, wanted)
    found = torch.stack(row_major_coordinates(flat, list(x.shape)), dim=1)
    return torch.where((wanted <= counts[-1]).unsqueeze(1), found, fill_value)


def isclose(
    a: torch.Tensor, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> torch.Tensor:
    b = torch.as_tensor(b, dtype=a.dtype) if not isinstance(b, torch.Tensor) else b
    error = torch.abs(a - b)
    close: torch.Tensor = (a == b) | (torch.isfinite(error) & (error <= atol + torch.abs(rtol * b)))
    if equal_nan:
        close = close | (torch.isnan(a) & torch.isnan(b))
    return close


def _nearest_sources(size_in: int, size_out: int, scale: float | None) -> torch.Tensor:
    """The input pixel that nearest upsampling copies to each output pixel, as ATen picks it:
    `floor(o / scale)` (`o * size_in / size_out` without a scale), clamped to the input."""
    step = 1.0 / scale if scale else size_in / size_out
    source = torch.floor(torch.arange(size_out, dtype=torch.float32) * step).to(torch.int64)
    return torch.clamp(source, max=size_in - 1)


def upsample_nearest2d(
    x: torch.Tensor,
    output_size: Sequence[int],
    scales_h: float | None = None,
    scales_w: float | None = None,
) -> torch.Tensor:
    for dim, size, scale in ((-2, output_size[0], scales_h), (-1, output_size[1], scales_w)):
        x = torch.index_select(x, dim, _nearest_sources(x.shape[dim], size, scale))
    return x


def upsample_nearest2d_backward(
    grad: torch.Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_h: float | None = None,
    scales_w: float | None = None,
) -> torch.Tensor:
    for dim, scale in ((-2, scales_h), (-1, scales_w)):
        sources = _nearest_sources(input_size[dim], output_size[dim], scale)
        shape = list(grad.shape)
        shape[dim] = input_size[dim]
        grad = grad.new_zeros(shape).index_add(dim % grad.dim(), sources, grad)
    return grad


def prims_squeeze(x: torch.Tensor, dimensions: Sequence[int]) -> torch.Tensor:
    dropped = {d % max(x.dim(), 1) for d in dimensions}
    return x.reshape([size for d, size in enumerate(x.shape) if d not in dropped])


def prims_view_of(x: torch.Tensor) -> torch.Tensor:
    return cast(torch.Tensor, aten.alias.default(x))


def prims_split_dim(x: torch.Tensor, dim: int, outer_length: int) -> torch.Tensor:
    shape = list(x.shape)
    return x.reshape(shape[:dim] + [outer_length, shape[dim] // outer_length] + shape[dim + 1 :])


def vector_norm(
    x: torch.Tensor,
    ord: Any = 2,  # noqa: A002 (ATen's name)
    dim: Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Any:
    if x.is_complex() and dtype is None:
        return aten.linalg_vector_norm.default(torch.abs(x), ord, dim, keepdim)
    if x.dim() == 0:
        return aten.linalg_vector_norm.default(x.reshape(1), ord, None, False, dtype=dtype)
    dims = list(dim) if dim else list(range(x.dim()))
    alone = math.prod(x.shape[d] for d in dims) == 1 and ord != 0
    if not x.is_floating_point() or not (ord in (1, 2) or alone) or not x.numel():
        return NotImplemented  # lowered as it is
    # ATen sums |x| (the 1-norm) and x * x (the 2-norm, then its square root) in x's dtype,
    # and of one element reduced gives its |x| for every order but 0 (3e38, not the inf of
    # its power); torch-mlir's pow(sum, 1 / ord) came out inf for a 1-norm of 3.4e38 and is a
    # few ulps off elsewhere (IREE's pow is exp(log))
    x = x if dtype is None else x.to(dtype)
    if ord == 1 or alone:
        return torch.sum(torch.abs(x), dims, keepdim)
    return torch.sqrt(torch.sum(x * x, dims, keepdim))


def norm_along(x: torch.Tensor, p: Any, dim: Sequence[int], keepdim: bool = False) -> Any:
    if not x.is_complex():
        return NotImplemented  # lowered as it is
    return vector_norm(x, 2 if p is None else p, dim, keepdim)


def angle(x: torch.Tensor) -> Any:
    if not x.is_complex():
        return NotImplemented  # lowered as it is
    return torch.atan2(torch.imag(x), torch.real(x))


def conj_physical(x: torch.Tensor) -> Any:
    if not x.is_complex():
        return NotImplemented  # lowered as it is
    return torch.complex(torch.real(x), -torch.imag(x))


def _pivoted(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The sign of getrf's row interchanges and U's diagonal, as eager's det finds them."""
    lu, pivots, _ = lu_factored(a)
    swaps = (pivots != torch.arange(1, a.shape[-1] + 1)).sum(-1)
    sign = torch.where(swaps % 2 == 1, -1, 1).to(a.dtype)
    return sign, torch.diagonal(lu, dim1=-2, dim2=-1)


def linalg_det(a: torch.Tensor) -> Any:
    if not lu_factorable(a):
        return NotImplemented
    sign, diagonal = _pivoted(a)
    return sign * torch.prod(diagonal, dim=-1)


def linalg_slogdet(a: torch.Tensor) -> Any:
    if not lu_factorable(a):
        return NotImplemented
    sign, diagonal = _pivoted(a)
    sign = sign * torch.prod(torch.sign(diagonal), dim=-1)
    return sign, torch.sum(torch.log(diagonal.abs()), dim=-1)


def linalg_norm(
    x: torch.Tensor,
    ord: Any = None,  # noqa: A002 (ATen's name)
    dim: Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Any:
    if not x.is_complex() or ord is not None:
        return NotImplemented  # lowered as it is, or a matrix norm this does not write out
    return vector_norm(x, 2, dim, keepdim, dtype=dtype)


def _transposed(
    x: torch.Tensor,
    weight: torch.Tensor,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    sizes: Sequence[int],
) -> torch.Tensor:
    """The transposed convolution of `x` with spatial output `sizes`: the whole one, then the
    window of it that padding and output padding select (torch-mlir gets the output size of
    one with output padding wrong)."""
    unpadded = [0] * len(stride)
    # eager's f64 kernel never multiplies a weight by a spread zero (`convolution`)
    if x.dtype == torch.float64:
        full = scattered_products(x, weight, stride, dilation, groups)
    else:
        full = aten.convolution.default(
            x, weight, None, stride, unpadded, dilation, True, unpadded, groups
        )
    for d, p, size in zip(range(2, x.dim()), padding, sizes, strict=True):
        kept = min(size, full.shape[d] - p)
        full = full.narrow(d, p, kept)
        if kept < size:  # beyond the whole output nothing reaches
            zeros = list(full.shape)
            zeros[d] = size - kept
            full = torch.cat([full, full.new_zeros(zeros)], d)
    return full


# ATen's CPU kernels differ on the zeros a convolution pads or spreads its input with: oneDNN
# and the slow transposed (col2im) kernels skip them where the slow (im2col) kernels multiply
# each weight by them, and which kernel eager picks depends on the shapes, the dtype and the
# host; so does the NaN that an infinite weight times such a zero gives.  f64 has only the
# slow kernels (and its transposed convolution is ATen's products placed and added,
# `scattered_products`).
_SPREAD_ZEROS_DIFFER = (torch.float32, torch.float16, torch.bfloat16)
_NONFINITE_PADDED_WEIGHT = (
    "a convolution with padding (or a transposed one) has an infinite or NaN weight: the "
    "kernel PyTorch picks for it skips the padding's zeros, which the compiled convolution "
    "multiplies (NaN), so shlo does not compute it"
)
_CONVOLVING = Reentry("convolving")


def _multiplies_padding(*convolution: Any) -> bool:
    """Whether the kernel eager picks for a convolution (ATen's own choice for its shapes,
    dtype and this host) multiplies each weight by the padding's zeros, as the compiled
    convolution does: the slow (im2col) kernels of a convolution that is not transposed do.
    Asked as eager runs: with oneDNN enabled (export turns it off while it traces) and more
    than one thread (with one, a 1x1 kernel may take the slow kernel instead)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(max(threads, 2))
    try:
        with torch.backends.mkldnn.flags(enabled=True):
            backend = torch._C._select_conv_backend(*convolution, None)
    except RuntimeError:
        return False
    finally:
        torch.set_num_threads(threads)
    transposed = convolution[6]
    return not transposed and backend.name.startswith("Slow")


def convolution(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Any:
    """A convolution whose weights may meet the zeros of its padding checked for infinite
    and NaN weights at run time; a transposed one with output padding, or in f64, as the whole
    transposed convolution and the window of it the padding selects (`_transposed`)."""
    if _CONVOLVING.inside():
        return NotImplemented  # lowered as it is
    with _CONVOLVING.entered():
        if (
            weight.dtype in _SPREAD_ZEROS_DIFFER
            and (transposed or any(padding))
            and not _multiplies_padding(
                x, weight, bias, stride, padding, dilation, transposed, output_padding, groups
            )
        ):
            torch._assert_async(torch.isfinite(weight).all(), _NONFINITE_PADDED_WEIGHT)
        if not transposed or not (any(output_padding) or x.dtype == torch.float64):
            return aten.convolution.default(
                x, weight, bias, stride, padding, dilation, transposed, output_padding, groups
            )
        sizes = [
            (x.shape[d] - 1) * s - 2 * p + k * (weight.shape[d] - 1) + extra + 1
            for d, s, p, k, extra in zip(
                range(2, x.dim()), stride, padding, dilation, output_padding, strict=True
            )
        ]
        y = _transposed(x, weight, stride, padding, dilation, groups, sizes)
        return y if bias is None else y + bias.reshape([-1] + [1] * len(sizes))


def convolution_backward(
    grad: torch.Tensor,
    x: torch.Tensor,
    weight: torch.Tensor,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> Any:
    if transposed:
        return NotImplemented  # the backward of a transposed convolution is not written out
    spatial = range(2, x.dim())
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        grad_input = _transposed(grad, weight, stride, padding, dilation, groups, x.shape[2:])
    if output_mask[1]:
        # per group: the input's channels as a batch, correlated with the gradient's, stride
        # and dilation trading places; cropped to the kernel
        parts = []
        for group_x, group_grad in zip(x.chunk(groups, 1), grad.chunk(groups, 1), strict=True):
            part = aten.convolution.default(
                group_x.transpose(0, 1), group_grad.transpose(0, 1), None,
                dilation, padding, stride, False, [0] * len(stride), 1,
            )  # fmt: skip
            for d in spatial:
                part = part.narrow(d, 0, weight.shape[d])
            parts.append(part.transpose(0, 1))
        grad_weight = torch.cat(parts, 0)
    if output_mask[2]:
        grad_bias = grad.sum([0, *spatial])
    return grad_input, grad_weight, grad_bias


def slice_bounds(size: Any, start: Any, end: Any) -> tuple[int, int] | None:
    """`start:end` of a dimension of `size` clamped as Python clamps a slice, None when any of
    them is symbolic."""
    start = 0 if start is None else start
    end = size if end is None else end
    if not all(isinstance(v, int) for v in (size, start, end)):
        return None
    start = min(max(start + size if start < 0 else start, 0), size)
    end = min(max(end + size if end < 0 else end, start), size)
    return start, end


def clamped_slice(
    x: torch.Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Any:
    bounds = slice_bounds(x.shape[dim], start, end)
    if bounds == (0, 0) and x.shape[dim] > 0:  # torch-mlir reads an end of 0 as "to the end"
        bounds = (x.shape[dim], x.shape[dim])
    if bounds is None or bounds == (start, end):
        return NotImplemented  # lowered as it is
    return aten.slice.Tensor(x, dim, *bounds, step)


def clamped_slice_scatter(
    x: torch.Tensor,
    source: torch.Tensor,
    dim: int = 0,
    start: Any = None,
    end: Any = None,
    step: int = 1,
) -> Any:
    bounds = slice_bounds(x.shape[dim], start, end)
    if bounds is None or bounds == (start, end):
        return NotImplemented  # lowered as it is
    if bounds[0] == bounds[1]:
        return x.clone()  # nothing is written
    return aten.slice_scatter.default(x, source, dim, *bounds, step)


def trace(x: torch.Tensor) -> Any:
    if x.numel() != 0:
        return decomposition_table[aten.trace.default](x)
    return x.sum()  # 0, in the dtype a trace has


def index_select(x: torch.Tensor, dim: int, index: torch.Tensor) -> Any:
    if index.dim() != 0:
        return NotImplemented  # lowered as it is
    return aten.index_select.default(x, dim, index.reshape(1))


def clamp(x: torch.Tensor, low: Any = None, high: Any = None) -> Any:
    dtype = torch.result_type(x, low if low is not None else high)
    if dtype == x.dtype:
        return NotImplemented  # lowered as it is
    return aten.clamp.default(x.to(dtype), low, high)


_NONFINITE_SPECTRUM = (
    "fft.rfft gave an infinite or NaN value (from an infinite, NaN or overflowing input): "
    "PyTorch's FFT libraries place infinities and NaN by their own butterflies, which shlo's "
    "transform (a product with the DFT matrix) does not follow, so shlo does not compute it"
)
_TRANSFORMING = Reentry("rfft")


def rfft(*args: Any, **kwargs: Any) -> Any:
    """`fft.rfft` as torch-mlir lowers it (a product with the DFT matrix, which reads every
    element into every bin), checked at run time to be finite: where a value is not, eager's
    FFT places infinities and NaN by its butterflies (the imaginary part of the first bin
    stays 0), which no matrix product follows."""
    if _TRANSFORMING.inside():
        return NotImplemented  # lowered as it is
    with _TRANSFORMING.entered():
        spectrum = aten.fft_rfft.default(*args, **kwargs)
    finite = spectrum.real.isfinite() & spectrum.imag.isfinite()
    torch._assert_async(finite.all(), _NONFINITE_SPECTRUM)
    return spectrum


def conv_tbc(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, pad: int = 0) -> Any:
    batch_first = aten.convolution.default(
        x.permute(1, 2, 0), weight.permute(2, 1, 0), bias, [1], [pad], [1], False, [0], 1
    )
    return batch_first.permute(2, 0, 1)


def scaled_mm(
    a: torch.Tensor,
    b: torch.Tensor,
    scale_a: torch.Tensor,
    scale_b: torch.Tensor,
    bias: torch.Tensor | None = None,
    scale_result: torch.Tensor | None = None,
    out_dtype: Any = None,
    use_fast_accum: bool = False,
) -> Any:
    if scale_a.dtype != torch.float32 or scale_b.dtype != torch.float32 or scale_result is not None:
        return NotImplemented  # block scaling: not written out
    product = torch.mm(a.float(), b.float()) * scale_a * scale_b
    if bias is not None:
        product = product + bias
    return product.to(out_dtype or a.dtype)


def scalar_of_one_element(x: torch.Tensor) -> Any:
    if x.dim() == 0 or x.dtype == torch.bool:
        return NotImplemented  # lowered as it is
    return aten._local_scalar_dense.default(x.reshape(()))


MISSING_LOWERINGS: dict[Any, Callable[..., Any]] = {
    **{op: decomposition_table[op] for op in _FROM_TORCH},
    prims.prod.default: prod,
    aten.__rshift__.Scalar: shift_right,
    aten.__lshift__.Scalar: shift_left,
    aten.norm.Scalar: norm,
    aten.erf.default: _on_floats(aten.erf.default),
    aten.reciprocal.default: _on_floats(aten.reciprocal.default),
    aten.unfold.default: unfold,
    aten.kthvalue.default: kthvalue,
    aten.nonzero_static.default: nonzero_static,
    aten.median.dim: median_along(ignore_nan=False),
    aten.nanmedian.dim: median_along(ignore_nan=True),
    aten.median.default: median_of_all(ignore_nan=False),
    aten.nanmedian.default: median_of_all(ignore_nan=True),
    aten.isclose.default: isclose,
    aten.upsample_nearest2d_backward.default: upsample_nearest2d_backward,
    aten.linalg_vector_norm.default: vector_norm,
    aten.norm.ScalarOpt_dim: norm_along,
    aten.linalg_norm.default: linalg_norm,
    aten.angle.default: angle,
    aten._conj_physical.default: conj_physical,
    aten.linalg_det.default: linalg_det,
    aten.linalg_slogdet.default: linalg_slogdet,
    aten.convolution_backward.default: convolution_backward,
    aten.convolution.default: convolution,
    aten.slice.Tensor: clamped_slice,
    aten.slice_scatter.default: clamped_slice_scatter,
    aten.trace.default: trace,
    aten.index_select.default: index_select,
    aten.clamp.default: clamp,
    aten.conv_tbc.default: conv_tbc,
    aten.fft_rfft.default: rfft,
    aten._scaled_mm.default: scaled_mm,
    aten._local_scalar_dense.default: scalar_of_one_element,
    quantized.quantize_per_channel.default: decomposed.quantize_per_channel,
    quantized.dequantize_per_channel.default: decomposed.dequantize_per_channel,
    **LINEAR_CROSS_ENTROPY,
}

_SKIPPED_BY_EXPORT: dict[Any, Callable[..., Any]] = {
    aten.upsample_nearest2d.default: upsample_nearest2d,
    prims.squeeze.default: prims_squeeze,
    prims.view_of.default: prims_view_of,
    prims.split_dim.default: prims_split_dim,
    # PyTorch's own decompositions of these run first (`py_impl` at the Autograd key)
    **LOSSES,
}


def write_out_before_decomposing(program: torch.export.ExportedProgram) -> None:
    """Call the Python definition in place of each op `run_decompositions` would keep."""
    nodes = [node for node in program.graph.nodes if node.target in _SKIPPED_BY_EXPORT]
    for node in nodes:
        node.target = _SKIPPED_BY_EXPORT[node.target]
    if nodes:
        program.graph_module.recompile()


def scalar_casts_as_items(graph: torch.fx.Graph) -> None:
    """Rewrite, in place, `float(n)` of an integer into the cast torch-mlir imports."""
    for node in graph.nodes:
        if node.op == "call_function" and node.target is torch.sym_float:
            node.target = aten.Float.Scalar


def empty_results_as_constants(graph: torch.fx.Graph) -> None:
    """Replace, in place, each op's result that has no elements (its shape known) by an
    `empty` of its shape and dtype; ops left without users are erased."""
    for node in list(graph.nodes):
        value = node.meta.get("val")
        if (
            node.op != "call_function"
            or not isinstance(value, torch.Tensor)
            or not all(isinstance(size, int) for size in value.shape)
            or value.numel() != 0
            or node.target is aten.empty.memory_format
        ):
            continue
        with graph.inserting_before(node):
            empty = graph.call_function(
                aten.empty.memory_format, (list(value.shape),), {"dtype": value.dtype}
            )
        empty.meta["val"] = value
        node.replace_all_uses_with(empty)
    graph.eliminate_dead_code()
