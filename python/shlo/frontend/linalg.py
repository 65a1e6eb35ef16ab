"""Triangular solves, Cholesky, LU and QR factorizations, written in ops torch-mlir lowers.

torch-mlir has no StableHLO lowering for `linalg_solve_triangular`, `triangular_solve`,
`linalg_cholesky_ex`, `cholesky`, `cholesky_solve`, `cholesky_inverse`, nor for the LU
family (`linalg_lu_factor_ex`, `linalg_lu`, `lu_unpack`, `linalg_lu_solve`, `_linalg_solve_ex`,
`linalg_inv_ex`) nor the QR family (`geqrf`, `linalg_qr`, `linalg_householder_product`,
`ormqr`), so a model calling them was refused.  Each is written out here one row or
column at a time, in the order eager's LAPACK (MKL) computes it, so that NaN and infinities
in the inputs land where eager puts them:

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
- LU is getrf's right-looking factorization with partial pivoting: idamax's pivot (the first
  row of largest magnitude; a NaN only where it comes first), whole rows interchanged, the
  column below scaled by the pivot's reciprocal (left as it is for a zero pivot, whose
  1-based order is `info`), then the rank-one update.  A solve is getrs: the interchanges,
  then L's and U's substitutions (Uᵀ's, Lᵀ's and the interchanges undone for the adjoint).
  `linalg_solve_ex` is the factorization and that solve, and the inverse the solve against
  the identity, as eager computes both (getri is not used).

- QR is geqr2's Householder factorization: each column's reflector as dlarfg makes it (the
  column's norm scaled as dnrm2 scales it, beta = -sign(alpha) |(alpha, x)|, tau = (beta -
  alpha) / beta, v = x / (alpha - beta)), applied to the columns after it.  Q is dorg2r's
  (the reflectors applied in reverse to the identity's columns) and `ormqr` dorm2r's (each
  reflector applied to C in turn from the side asked).  Where infinities and NaN meet, MKL's
  own arithmetic is followed as measured against eager: its max and min pick as x86's
  maxsd/minsd, a NaN alpha counts as negative, dgeqrf applies a reflector whose tau is 0
  (dorgqr and dormqr skip it), and a float64 reciprocal that is subnormal reads as zero.

Where eager raises on a singular or not positive-definite matrix (`cholesky`,
`cholesky_inverse`, an `_ex` form with `check_errors=True`), the decomposition calls
`_linalg_check_errors` as eager does, and that becomes a run-time assertion
(shlo.frontend.assertions).

Limits: float32 and float64 matrices up to `LARGEST_SOLVED` rows, batched (A's and B's batch
dimensions broadcast), square for LU solves and inverses (any shape for the factorization);
anything else, LU without pivoting and LU solves of empty tensors return NotImplemented, so
the op is refused by name.
Entries near the dtype's largest value can still overflow otherwise than eager's: IREE fuses
b - a * x into one multiply-add where MKL's product overflows (inf - inf), and MKL's own sums
are blocked in an order not reproduced here.
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


def _checked(found: tuple[torch.Tensor, ...], api: str, a: torch.Tensor, check: bool = True) -> Any:
    """`found`, whose last tensor is LAPACK's `info`, after eager's check of it when `check`."""
    if check:
        aten._linalg_check_errors.default(found[-1], api, is_matrix=a.dim() == 2)
    return found


def _factorable(a: torch.Tensor) -> bool:
    return a.dtype in (torch.float32, torch.float64) and a.shape[-1] <= LARGEST_SOLVED


def linalg_cholesky_ex(a: torch.Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    if not _factorable(a):
        return NotImplemented
    lower, info = _factored(a.mT if upper else a)
    return _checked((lower.mT if upper else lower, info), "linalg.cholesky_ex", a, check_errors)


def cholesky(a: torch.Tensor, upper: bool = False) -> Any:
    if not _factorable(a):
        return NotImplemented
    lower, info = _factored(a.mT if upper else a)
    return _checked((lower.mT if upper else lower, info), "cholesky", a)[0]


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
    singular = (factor.diagonal(0, -2, -1) == 0).any(-1).to(torch.int32)  # trtri's info
    _checked((singular,), "cholesky_inverse", factor)
    if upper:  # U⁻¹ U⁻ᵀ, U⁻¹ as the reversal of the reversed (lower) U's inverse
        inverse = _inverted(factor.flip(-1, -2)).flip(-1, -2)
        return _lower_products(inverse.mT)
    return _lower_products(_inverted(factor))


def _first_largest(column: torch.Tensor) -> torch.Tensor:
    """idamax's row of each column (…, m): the first whose |value| exceeds every one before
    it, so a NaN is never chosen unless it comes first, when nothing exceeds it."""
    magnitude = torch.where(torch.isnan(column), -1, column.abs())
    return torch.where(torch.isnan(column[..., 0]), 0, torch.argmax(magnitude, dim=-1))


def lu_factored(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """getrf's LU of `a` (…, m, n), its min(m, n) 1-based int32 pivots and `info` (the
    1-based order of the first zero pivot, 0 if none).  Each step swaps whole rows, scales the
    column below the pivot by its reciprocal (divides where the pivot is below the smallest
    normal, leaves it where the pivot is zero) and subtracts the rank-one update from the
    rest."""
    rows = torch.arange(a.shape[-2])
    tiny = torch.finfo(a.dtype).tiny
    info = torch.zeros(a.shape[:-2], dtype=torch.int32)
    pivots = []
    for k in range(min(a.shape[-2:])):
        target = (_first_largest(a[..., k:, k]) + k).unsqueeze(-1)
        order = torch.where(rows == k, target, torch.where(rows == target, k, rows))
        a = torch.gather(a, -2, order.unsqueeze(-1).expand(a.shape))
        pivot = a[..., k : k + 1, k : k + 1]
        below = a[..., k + 1 :, k : k + 1]
        scaled = torch.where(pivot.abs() >= tiny, below * (1 / pivot), below / pivot)
        scaled = torch.where(pivot == 0, below, scaled)
        info = torch.where((info == 0) & (pivot[..., 0, 0] == 0), k + 1, info)
        rest = a[..., k + 1 :, k + 1 :] - scaled * a[..., k : k + 1, k + 1 :]
        lower = torch.cat([a[..., k + 1 :, :k], scaled, rest], -1)
        a = torch.cat([a[..., : k + 1, :], lower], -2)
        pivots.append(target[..., 0].to(torch.int32) + 1)
    if not pivots:
        return a.clone(), torch.zeros((*a.shape[:-2], 0), dtype=torch.int32), info
    return a, torch.stack(pivots, -1), info


def lu_factorable(a: torch.Tensor) -> bool:
    """Whether `a` is a square float32 or float64 matrix small enough to be factored."""
    return _factorable(a) and a.shape[-2] == a.shape[-1]


def _rectangular_factorable(a: torch.Tensor) -> bool:
    return _factorable(a) and a.shape[-2] <= LARGEST_SOLVED


def linalg_lu_factor_ex(a: torch.Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    if not pivot or not _rectangular_factorable(a):
        return NotImplemented
    return _checked(lu_factored(a), "torch.linalg.lu_factor_ex", a, check_errors)


def _permutation(pivots: torch.Tensor, reverse: bool, size: int | None = None) -> torch.Tensor:
    """The order of `size` rows (…, size; by default one per pivot) that laswp's
    interchanges make, applied first to last, or last to first (the inverse order)."""
    n = pivots.shape[-1]
    rows = torch.arange(n if size is None else size)
    order = rows.expand(*pivots.shape[:-1], rows.shape[0])
    swaps = pivots.long() - 1
    for k in range(n - 1, -1, -1) if reverse else range(n):
        target = swaps[..., k : k + 1]
        exchanged = torch.where(rows == k, target, torch.where(rows == target, k, rows))
        order = torch.gather(order, -1, exchanged)
    return order


def _reordered(b: torch.Tensor, order: torch.Tensor) -> torch.Tensor:
    """B's rows in the order `order` (…, n).  A single column is gathered as two and one
    kept: IREE fails to compile the gather of one column's rows (an i64 to index cast)."""
    columns = max(b.shape[-1], 2)
    source = b.expand(*b.shape[:-1], columns) if b.shape[-1] == 1 else b
    gathered = torch.gather(source, -2, order.unsqueeze(-1).expand(source.shape))
    return gathered[..., : b.shape[-1]]


def _empty(*tensors: torch.Tensor) -> bool:
    """Whether any tensor has no elements: torch-mlir's StableHLO lowering aborts on the
    solves written out for them."""
    return any(t.numel() == 0 for t in tensors)


def _lu_solved(lu: torch.Tensor, pivots: torch.Tensor, b: torch.Tensor, trans: bool) -> Any:
    """getrs: X of A X = B (or Aᵀ X = B) from A's LU factorization, LU's batch broadcast
    with B's: the interchanges on B, L's then U's substitution (or Uᵀ's, Lᵀ's, then the
    interchanges undone)."""
    lu, b = _broadcast(lu, b)
    pivots = pivots.expand(*lu.shape[:-1])
    order = _permutation(pivots, trans)
    if trans:
        solved = _substituted(lu.mT, b, False, False)
        return _reordered(_substituted(lu.mT, solved, True, True), order)
    solved = _substituted(lu, _reordered(b, order), False, True)
    return _substituted(lu, solved, True, False)


def _solve_from(
    lu: torch.Tensor, pivots: torch.Tensor, b: torch.Tensor, left: bool, adjoint: bool
) -> Any:
    if left:
        return _lu_solved(lu, pivots, b, adjoint)
    return _lu_solved(lu, pivots, b.mT, not adjoint).mT


def linalg_lu_solve(
    lu: torch.Tensor,
    pivots: torch.Tensor,
    b: torch.Tensor,
    *,
    left: bool = True,
    adjoint: bool = False,
) -> Any:
    if not lu_factorable(lu) or not _solvable(lu, b) or lu.dtype != b.dtype or _empty(lu, b):
        return NotImplemented
    return _solve_from(lu, pivots, b, left, adjoint)


def linalg_solve_ex(
    a: torch.Tensor, b: torch.Tensor, *, left: bool = True, check_errors: bool = False
) -> Any:
    """gesv: A's LU factorization (returned with its pivots and `info`), then getrs; a
    vector B is one column."""
    if not lu_factorable(a) or a.dtype != b.dtype:
        return NotImplemented
    vector = b.dim() == 1 or (b.dim() == a.dim() - 1 and b.shape == a.shape[:-1])
    column = b.unsqueeze(-1) if vector else b
    if not _solvable(a, column) or _empty(a, column):
        return NotImplemented
    lu, pivots, info = lu_factored(a)
    result = _solve_from(lu, pivots, column, left, False)
    found = (result.squeeze(-1) if vector else result), lu, pivots, info
    return _checked(found, "torch.linalg.solve_ex", a, check_errors)


def linalg_inv_ex(a: torch.Tensor, *, check_errors: bool = False) -> Any:
    """The solve against the identity, as eager's inverse is found."""
    if not lu_factorable(a) or _empty(a):
        return NotImplemented
    identity = torch.eye(a.shape[-1], dtype=a.dtype).expand(a.shape)
    result, _, _, info = linalg_solve_ex(a, identity)
    return _checked((result, info), "linalg.inv_ex", a, check_errors)


def lu_unpack(
    lu: torch.Tensor,
    pivots: torch.Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
) -> Any:
    """P, L and U with A = P L U (A m x n, k = min(m, n): P m x m, L m x k, U k x n): P's
    column j is the row the interchanges bring to j."""
    if not (unpack_data and unpack_pivots) or not _rectangular_factorable(lu):
        return NotImplemented
    m, n = lu.shape[-2:]
    k = min(m, n)
    order = _permutation(pivots, False, m)
    permutation = (order.unsqueeze(-2) == torch.arange(m).unsqueeze(-1)).to(lu.dtype)
    lower = torch.tril(lu[..., :k], -1) + torch.eye(m, k, dtype=lu.dtype)
    return permutation, lower, torch.triu(lu[..., :k, :])


def linalg_lu(a: torch.Tensor, *, pivot: bool = True) -> Any:
    if not pivot or not _rectangular_factorable(a):
        return NotImplemented
    lu, pivots, _ = lu_factored(a)
    return lu_unpack(lu, pivots)


def _reflected(
    c: torch.Tensor, v: torch.Tensor, tau: torch.Tensor, always: bool = False
) -> torch.Tensor:
    """dlarf from the left: C - tau v (vᵀ C) for C (…, r, cols), v (…, r), tau (…).  Where
    tau is 0, C stays as it is (dorg2r's and dorm2r's dlarf) unless `always` (MKL's dgeqrf
    applies it: an infinity in C meets 0 * inf there)."""
    w = (c * v.unsqueeze(-1)).sum(-2)
    updated = c + v.unsqueeze(-1) * (-tau.unsqueeze(-1) * w).unsqueeze(-2)
    return updated if always else torch.where((tau != 0)[..., None, None], updated, c)


def _reflector(alpha: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """dlarfg: (beta, v below its leading 1, tau) of the reflector H with H [alpha; x] =
    [beta; 0], beta = -sign(alpha) |(alpha, x)|, v = x / (alpha - beta); H = I (tau 0)
    where x is zero or empty."""
    if x.shape[-1] == 0:
        return alpha, x, torch.zeros_like(alpha)
    # dnrm2 scales, so |x| overflows only where the norm does; subnormals read as zero
    scale = x.abs().amax(-1)
    normal = scale >= torch.finfo(x.dtype).tiny  # false for NaN
    finite = normal & torch.isfinite(scale)
    ratio = x / torch.where(finite, scale, 1).unsqueeze(-1)
    sized = torch.where(normal | torch.isnan(scale), scale, 0)
    norm = torch.where(finite, scale * torch.sqrt((ratio * ratio).sum(-1)), sized)
    # MKL's dlapy2 and sign, as measured: max and min as x86's maxsd/minsd pick (the second
    # operand where one is NaN), no NaN test, and a NaN alpha taken as negative
    a = alpha.abs()
    larger, smaller = torch.where(a > norm, a, norm), torch.where(a < norm, a, norm)
    ratio = smaller / larger
    length = torch.where(smaller == 0, larger, larger * torch.sqrt(1 + ratio * ratio))
    beta = torch.where(alpha >= 0, -length, length)
    reflect = norm != 0
    tau = torch.where(reflect, (beta - alpha) / beta, 0)
    # x times 1 / (alpha - beta) computed in float64, as MKL's results show: for a float64
    # matrix a subnormal reciprocal reads as zero; a float32 one's never is (IREE would
    # demote the float64 product, so it is the quotient)
    difference = (alpha - beta).unsqueeze(-1)
    scaled = x / difference if x.dtype == torch.float32 else x * (1 / difference)
    below = torch.where(reflect.unsqueeze(-1), scaled, x)
    return torch.where(reflect, beta, alpha), below, tau


def _column(v: torch.Tensor) -> torch.Tensor:
    """A reflector stored below the diagonal, with its implicit leading 1."""
    return torch.cat([torch.ones((*v.shape[:-1], 1), dtype=v.dtype), v], -1)


def _qr_factored(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """dgeqr2: the reflectors below R (…, m, n) and their taus (…, min(m, n))."""
    m, n = a.shape[-2:]
    taus = []
    for i in range(min(m, n)):
        beta, below, tau = _reflector(a[..., i, i], a[..., i + 1 :, i])
        rest = a[..., i:, i + 1 :]
        if i < n - 1:
            rest = _reflected(rest, _column(below), tau, always=True)
        column = torch.cat([beta.unsqueeze(-1), below], -1).unsqueeze(-1)
        a = torch.cat([a[..., :i, :], torch.cat([a[..., i:, :i], column, rest], -1)], -2)
        taus.append(tau)
    tau = torch.stack(taus, -1) if taus else a.new_zeros((*a.shape[:-2], 0))
    return a, tau


def _q_formed(a: torch.Tensor, tau: torch.Tensor, columns: int) -> torch.Tensor:
    """dorg2r: the first `columns` columns of Q = H_1 … H_k from the reflectors in `a`
    (…, m, n), the columns past k starting as the identity's."""
    m, k = a.shape[-2], tau.shape[-1]
    q = torch.cat(
        [
            a[..., :, :k],
            torch.eye(m, columns, dtype=a.dtype)[:, k:].expand(*a.shape[:-2], m, columns - k),
        ],
        -1,
    )
    for i in range(k - 1, -1, -1):
        t = tau[..., i]
        below = q[..., i + 1 :, i]
        rest = q[..., i:, i + 1 :]
        if i < columns - 1:
            rest = _reflected(rest, _column(below), t)
        column = torch.cat([(1 - t).unsqueeze(-1), -t.unsqueeze(-1) * below], -1).unsqueeze(-1)
        lower = torch.cat([q[..., i:, :i], column, rest], -1)
        upper = torch.cat(
            [q[..., :i, :i], torch.zeros_like(q[..., :i, i : i + 1]), q[..., :i, i + 1 :]], -1
        )
        q = torch.cat([upper, lower], -2)
    return q


def _qr_sized(*matrices: torch.Tensor) -> bool:
    return all(_factorable(m) and m.shape[-2] <= LARGEST_SOLVED for m in matrices)


def geqrf(a: torch.Tensor) -> Any:
    if not _qr_sized(a):
        return NotImplemented
    return _qr_factored(a)


def linalg_qr(a: torch.Tensor, mode: str = "reduced") -> Any:
    """Q and R from dgeqr2 and dorg2r, as eager's geqrf and orgqr: Q m x k and R k x n
    (reduced), Q m x m and R m x n (complete), no Q (r)."""
    if not _qr_sized(a):
        return NotImplemented
    m, n = a.shape[-2:]
    k = min(m, n)
    reflectors, tau = _qr_factored(a)
    rows = m if mode == "complete" else k
    r = torch.triu(reflectors[..., :rows, :])
    if mode == "r":
        return a.new_empty((0,)), r
    return _q_formed(reflectors, tau, m if mode == "complete" else k), r


def householder_product(a: torch.Tensor, tau: torch.Tensor) -> Any:
    if not _qr_sized(a) or a.dtype != tau.dtype or tau.shape[:-1] != a.shape[:-2]:
        return NotImplemented
    return _q_formed(a, tau, a.shape[-1])


def ormqr(
    a: torch.Tensor, tau: torch.Tensor, c: torch.Tensor, left: bool = True, transpose: bool = False
) -> Any:
    """dorm2r: Q C, Qᵀ C, C Q or C Qᵀ with Q = H_1 … H_k from the reflectors in `a`, each
    reflector applied in turn (H_i to rows i.. of C from the left, to columns i.. from the
    right)."""
    if not _qr_sized(a, c) or len({a.dtype, tau.dtype, c.dtype}) != 1:
        return NotImplemented
    if a.shape[:-2] != c.shape[:-2] or tau.shape[:-1] != a.shape[:-2]:
        return NotImplemented
    k = tau.shape[-1]
    forward = left == transpose
    c = c if left else c.mT
    for i in range(k) if forward else range(k - 1, -1, -1):
        v = _column(a[..., i + 1 :, i])[..., : c.shape[-2] - i]
        c = torch.cat([c[..., :i, :], _reflected(c[..., i:, :], v, tau[..., i])], -2)
    return c if left else c.mT


LINALG: dict[Any, Callable[..., Any]] = {
    aten.geqrf.default: geqrf,
    aten.linalg_qr.default: linalg_qr,
    aten.linalg_householder_product.default: householder_product,
    aten.ormqr.default: ormqr,
    aten.linalg_solve_triangular.default: linalg_solve_triangular,
    aten.triangular_solve.default: triangular_solve,
    aten.linalg_cholesky_ex.default: linalg_cholesky_ex,
    aten.cholesky.default: cholesky,
    aten.cholesky_solve.default: cholesky_solve,
    aten.cholesky_inverse.default: cholesky_inverse,
    aten.linalg_lu_factor_ex.default: linalg_lu_factor_ex,
    aten.linalg_lu_solve.default: linalg_lu_solve,
    aten._linalg_solve_ex.default: linalg_solve_ex,
    aten.linalg_inv_ex.default: linalg_inv_ex,
    aten.lu_unpack.default: lu_unpack,
    aten.linalg_lu.default: linalg_lu,
}
