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
- `kthvalue` as a sort and a pick along the dimension.
- `isclose` as ATen defines it: equal values (infinities included) or a finite `|a - b|` at
  most `atol + |rtol * b|`; NaNs close to each other only with `equal_nan`.
- `upsample_nearest2d` with an output size, as a gather of each output pixel's source, and
  its backward, the sum of the gradient over each input pixel's copies, as a scatter-add to
  those sources.

`float(n)` of an integer that came from a tensor (`float(int(t))`), as TorchDynamo traces it
(`torch.sym_float`), has no import in torch-mlir; `scalar_casts_as_items` makes it
`aten.Float.Scalar`, which torch-mlir imports and lowers.

torch.export never hands `upsample_nearest2d` with an output size to a decomposition (neither
torch's own nor one given to `run_decompositions`), so `write_out_before_decomposing` puts the
function in its place in the exported graph and the retrace runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch._decomp import decomposition_table

aten = torch.ops.aten
prims = torch.ops.prims

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
    return aten.bitwise_right_shift.Tensor(x, torch.scalar_tensor(bits, dtype=x.dtype))


def shift_left(x: torch.Tensor, bits: Any) -> torch.Tensor:
    return aten.bitwise_left_shift.Tensor(x, torch.scalar_tensor(bits, dtype=x.dtype))


def norm(x: torch.Tensor, p: Any = 2) -> torch.Tensor:
    return torch.linalg.vector_norm(x, 2 if p is None else p)


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
    return decomposition_table[aten.unfold.default](x, dimension, size, step)


def kthvalue(
    x: torch.Tensor, k: int, dim: int = -1, keepdim: bool = False
) -> tuple[torch.Tensor, torch.Tensor]:
    values, indices = torch.sort(x, dim=dim)
    picked = (values.narrow(dim, k - 1, 1), indices.narrow(dim, k - 1, 1))
    return picked if keepdim else (picked[0].squeeze(dim), picked[1].squeeze(dim))


def isclose(
    a: torch.Tensor, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> torch.Tensor:
    b = torch.as_tensor(b, dtype=a.dtype) if not isinstance(b, torch.Tensor) else b
    error = torch.abs(a - b)
    close = (a == b) | (torch.isfinite(error) & (error <= atol + torch.abs(rtol * b)))
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
    aten.isclose.default: isclose,
    aten.upsample_nearest2d_backward.default: upsample_nearest2d_backward,
}

_SKIPPED_BY_EXPORT: dict[Any, Callable[..., Any]] = {
    aten.upsample_nearest2d.default: upsample_nearest2d,
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
