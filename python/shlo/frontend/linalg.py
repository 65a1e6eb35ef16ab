"""Triangular solves and Cholesky factorizations, written in ops torch-mlir lowers.

torch-mlir has no StableHLO lowering for `linalg_solve_triangular`, `triangular_solve`,
`linalg_cholesky_ex`, `cholesky`, `cholesky_solve` or `cholesky_inverse`, so a model calling
them was refused.  Each is written out here one row or column at a time, in the order eager's
LAPACK (MKL) computes it, so that NaN and infinities in the inputs land where eager puts them:

- A triangular solve is trsm's column-oriented substitution: x_k = b_k * (1 / A_kk), then
  b_i -= A_ik * x_k for every row still to solve, no step skipped for a zero.  MKL multiplies
  by the reciprocal (flushed to zero where it is subnormal, it makes inf * 0 a NaN as eager
  does), except for a single right-hand side, which it divides by A_kk.  A solve from the
  right, or with A transposed, is the same substitution on the transposed system.
  `unitriangular` takes the diagonal as 1 and never reads it.
- Cholesky is potf2's left-looking factorization: column j's pivot is
  A_jj - L_j,:j . L_j,:j, its square root the diagonal, and the column below it the same
  update times the root's reciprocal (in float32 NaN for an infinite pivot: MKL's spotrf
  refines 1/sqrt by a Newton step, 0 * inf).  Where a pivot is not positive (or NaN), `info`
  is its 1-based order, the failing diagonal holds the pivot, and that column's lower part and
  every later one keep A's values, as eager leaves them.  `upper` is the same factorization
  of A's transpose.
- `cholesky_solve` is the two triangular solves of potrs; `cholesky_inverse` is potri: the
  factor inverted column by column (trti2), then multiplied by its transpose (lauum), summing
  only the products of the triangles' entries.

Limits: float32 and float64 matrices up to `LARGEST_SOLVED` rows, batched (A's and B's batch
dimensions broadcast); anything else, and `linalg_cholesky_ex` with `check_errors=True`
(an error raised from the data), returns NotImplemented, so the op is refused by name.
Entries near the dtype's largest value can still overflow otherwise than eager's: IREE fuses
b - a * x into one multiply-add where MKL's product overflows (inf - inf), and MKL's own sums
are blocked in an order not reproduced here.  `torch.linalg.cholesky` itself checks `info`
in an effectful op (`with_effects`) that torch-mlir's importer refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

aten = torch.ops.aten

LARGEST_SOLVED = 64  # every step is written out, one row or column at a time


def _solvable(*matrices: torch.Tensor) -> bool:
    return (
        all(
            m.dtype in (torch.float32, torch.float64) and m.shape[-2] <= LARGEST_SOLVED
            for m in matrices
        )
        and matrices[0].shape[-1] <= LARGEST_SOLVED
    )


def _broadcast(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """`a` and `b` with their batch dimensions (all but the last two) broadcast."""
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])  # type: ignore[no-untyped-call]
    return a.expand(*batch, *a.shape[-2:]), b.expand(*batch, *b.shape[-2:])


def _substituted(a: torch.Tensor, b: torch.Tensor, upper: bool, unit: bool) -> torch.Tensor:
    """X of A X = B by trsm's column-oriented substitution (A's batch broadcast with B's)."""
    a, b = _broadcast(a, b)
    n = a.shape[-1]
    if n == 0:
        return b.clone()
    single = b.shape[-1] == 1  # one right-hand side: MKL divides
    solved = []
    pending = b
    for k in range(n - 1, -1, -1) if upper else range(n):
        row = pending[..., k : k + 1, :] if upper else pending[..., :1, :]
        diagonal = a[..., k : k + 1, k : k + 1]
        x = row if unit else row / diagonal if single else row * (1 / diagonal)
        if upper:
            pending = pending[..., :k, :] - a[..., :k, k : k + 1] * x
        else:
            pending = pending[..., 1:, :] - a[..., k + 1 :, k : k + 1] * x
        solved.append(x)
    return torch.cat(solved[::-1] if upper else solved, -2)


def linalg_solve_triangular(
    a: torch.Tensor,
    b: torch.Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
) -> Any:
    if not _solvable(a, b) or a.dtype != b.dtype:
        return NotImplemented
    if left:
        return _substituted(a, b, upper, unitriangular)
    return _substituted(a.mT, b.mT, not upper, unitriangular).mT


def triangular_solve(
    b: torch.Tensor,
    a: torch.Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
) -> Any:
    if not _solvable(a, b) or a.dtype != b.dtype:
        return NotImplemented
    coefficient = a.mT if transpose else a
    solution = _substituted(coefficient, b, upper != transpose, unitriangular)
    return solution, _broadcast(a, b)[0].clone()


def _factored(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """potf2's lower Cholesky factor of `a` (…, n, n) and its `info` (0, or the 1-based order
    of the first pivot that is not positive)."""
    n = a.shape[-1]
    rows = torch.arange(n)
    failed = torch.zeros(a.shape[:-2], dtype=torch.bool)
    info = torch.zeros(a.shape[:-2], dtype=torch.int32)
    columns: list[torch.Tensor] = []
    for j in range(n):
        column = a[..., :, j]
        updated = column
        if columns:
            done = torch.stack(columns, -1)
            updated = column - (done * done[..., j : j + 1, :]).sum(-1)
        pivot = updated[..., j : j + 1]
        root = torch.sqrt(pivot)
        scale = 1 / root
        if a.dtype == torch.float32:  # MKL's spotrf: rsqrt refined by Newton, NaN for inf
            scale = torch.where(torch.isinf(pivot), torch.nan, scale)
        factored = torch.where(rows == j, root, updated * scale)
        fails_here = ~failed & ~(pivot[..., 0] > 0)
        info = torch.where(fails_here, j + 1, info)
        left_as_is = torch.where(rows == j, pivot, column)
        factored = torch.where(fails_here.unsqueeze(-1), left_as_is, factored)
        factored = torch.where(failed.unsqueeze(-1), column, factored)
        failed = failed | fails_here
        columns.append(factored)
    if not columns:
        return a.clone(), info
    return torch.tril(torch.stack(columns, -1)), info


def _factorable(a: torch.Tensor) -> bool:
    return a.dtype in (torch.float32, torch.float64) and a.shape[-1] <= LARGEST_SOLVED


def linalg_cholesky_ex(a: torch.Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    if check_errors or not _factorable(a):
        return NotImplemented
    if upper:
        lower, info = _factored(a.mT)
        return lower.mT, info
    return _factored(a)


def cholesky(a: torch.Tensor, upper: bool = False) -> Any:
    if not _factorable(a):
        return NotImplemented
    return linalg_cholesky_ex(a, upper=upper)[0]


def cholesky_solve(b: torch.Tensor, factor: torch.Tensor, upper: bool = False) -> Any:
    if not _solvable(factor, b) or factor.dtype != b.dtype:
        return NotImplemented
    if upper:  # UᵀU X = B
        return _substituted(factor, _substituted(factor.mT, b, False, False), True, False)
    return _substituted(factor.mT, _substituted(factor, b, False, False), True, False)


def _inverted(lower: torch.Tensor) -> torch.Tensor:
    """trti2's inverse of a lower triangular matrix, its columns from the last: the diagonal's
    reciprocal d, and below it -d times the inverse found so far applied to the column."""
    n = lower.shape[-1]
    triangle = torch.ones(n, n, dtype=torch.bool).tril()
    inverse = lower[..., n:, n:]
    for j in range(n - 1, -1, -1):
        d = 1 / lower[..., j : j + 1, j]
        below = lower[..., j + 1 :, j]
        kept = triangle[j + 1 :, j + 1 :]  # the products trmv forms, the triangle's alone
        below = -d * torch.where(kept, inverse * below.unsqueeze(-2), 0).sum(-1)
        zeros = torch.zeros(*lower.shape[:-2], 1, n - j - 1, dtype=lower.dtype)
        top = torch.cat([d.unsqueeze(-1), zeros], -1)
        inverse = torch.cat([top, torch.cat([below.unsqueeze(-1), inverse], -1)], -2)
    return inverse


def _lower_products(inverse: torch.Tensor) -> torch.Tensor:
    """lauum's Xᵀ X of a lower triangular X, each entry summed over the rows k >= max(i, j)
    that hold both factors, its lower triangle mirrored (as eager fills the other)."""
    k = torch.arange(inverse.shape[-1])
    held = (k[:, None, None] >= k[None, :, None]) & (k[:, None, None] >= k[None, None, :])
    products = torch.where(held, inverse.unsqueeze(-1) * inverse.unsqueeze(-2), 0).sum(-3)
    return torch.tril(products) + torch.tril(products, -1).mT


def cholesky_inverse(factor: torch.Tensor, upper: bool = False) -> Any:
    """potri: the factor's inverse (trtri), then its product with its transpose (lauum); the
    upper factor's inverse is found from its first column, the lower's from its last."""
    if not _factorable(factor):
        return NotImplemented
    if upper:  # U⁻¹ U⁻ᵀ, U⁻¹ as the reversal of the reversed (lower) U's inverse
        inverse = _inverted(factor.flip(-1, -2)).flip(-1, -2)
        return _lower_products(inverse.mT)
    return _lower_products(_inverted(factor))


LINALG: dict[Any, Callable[..., Any]] = {
    aten.linalg_solve_triangular.default: linalg_solve_triangular,
    aten.triangular_solve.default: triangular_solve,
    aten.linalg_cholesky_ex.default: linalg_cholesky_ex,
    aten.cholesky.default: cholesky,
    aten.cholesky_solve.default: cholesky_solve,
    aten.cholesky_inverse.default: cholesky_inverse,
}
