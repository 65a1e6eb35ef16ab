"""Portable linear algebra in JAX, in place of jaxlib's LAPACK calls (JAX child process only).

The algorithms that `shlo.jax.linalg_child` lowers JAX's linear algebra to on CPU, where
JAX has none outside LAPACK or the TPU: Cholesky, substitution, Householder QR in LAPACK's
sign convention, partial-pivoting LU, cyclic Jacobi, written with lax loops.  Every function
here takes one matrix; batches go through `batched`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.lax import linalg as lax_linalg

HIGHEST = lax.Precision.HIGHEST
JACOBI_SWEEPS = {4: 12, 8: 16}  # by the float's size in bytes
Array = Any


def _dot(a: Array, b: Array) -> Array:
    return jnp.matmul(a, b, precision=HIGHEST)


def batched(fn: Any, rank: int, *xs: Array) -> Any:
    """`fn` of one matrix (of `rank` dims) mapped over the leading batch dimensions."""
    for _ in range(xs[0].ndim - rank):
        fn = jax.vmap(fn)
    return fn(*xs)


def cholesky_lower(a: Array) -> Array:
    """L with a = L L^H, reading only a's lower triangle; NaN from the first bad pivot on."""
    n = a.shape[-1]
    index = jnp.arange(n)

    def column(j: Array, low: Array) -> Array:
        row = jnp.where(index < j, low[j], 0)
        pivot = jnp.sqrt(jnp.real(a[j, j] - jnp.sum(row * jnp.conj(row)))).astype(a.dtype)
        below = (a[:, j] - _dot(low, jnp.conj(row))) / pivot
        new = jnp.where(index > j, below, jnp.where(index == j, pivot, 0))
        return low.at[:, j].set(new)

    return lax.fori_loop(0, n, column, jnp.zeros_like(a))


def lower_solve(m: Array, b: Array, unit: bool) -> Array:
    """x with m x = b by forward substitution, reading only m's lower triangle."""
    n = m.shape[0]
    index = jnp.arange(n)

    def row(i: Array, x: Array) -> Array:
        coefficients = jnp.where(index < i, m[i], 0)
        value = b[i] - _dot(coefficients, x)
        return x.at[i].set(value if unit else value / m[i, i])

    return lax.fori_loop(0, n, row, jnp.zeros_like(b))


def triangular_solve(
    a: Array,
    b: Array,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> Array:
    """`lax.linalg.triangular_solve` for one matrix, by forward substitution."""
    op = jnp.tril(a) if lower else jnp.triu(a)
    op = jnp.where(jnp.eye(a.shape[0], dtype=bool), a, op)
    if conjugate_a:
        op = jnp.conj(op)
    if transpose_a:
        op, lower = op.T, not lower
    rhs = b
    if not left_side:  # x op = b  <=>  op^T x^T = b^T
        op, lower, rhs = op.T, not lower, b.T
    if not lower:  # reversing rows and columns makes an upper triangle lower
        op, rhs = op[::-1, ::-1], rhs[::-1]
    x = lower_solve(op, rhs, unit_diagonal)
    x = x if lower else x[::-1]
    return x if left_side else x.T


def _reflector(column: Array, j: Array) -> tuple[Array, Array, Array]:
    """LAPACK's xLARFG for column[j:]: (v with v[j] = 1 and zeros above, tau, beta)."""
    rows = jnp.arange(column.shape[0])
    x = jnp.where(rows > j, column, 0)
    alpha = column[j]
    norm = jnp.sqrt(jnp.sum(jnp.abs(x) ** 2) + jnp.abs(alpha) ** 2)
    beta = -jnp.where(jnp.real(alpha) >= 0, 1, -1) * norm
    trivial = (jnp.sum(jnp.abs(x)) == 0) & (jnp.imag(alpha) == 0)
    safe_beta = jnp.where(trivial, 1, beta).astype(column.dtype)
    tau = jnp.where(trivial, 0, (safe_beta - alpha) / safe_beta)
    scaled = jnp.where(trivial, 0, x / jnp.where(trivial, 1, alpha - safe_beta))
    v = jnp.where(rows == j, 1, scaled).astype(column.dtype)
    return v, tau.astype(column.dtype), jnp.where(trivial, alpha, beta).astype(column.dtype)


def geqrf(a: Array) -> tuple[Array, Array]:
    """LAPACK's xGEQRF for one matrix: R above the diagonal, reflectors below, and taus."""
    m, n = a.shape
    rows, columns = jnp.arange(m), jnp.arange(n)

    def step(j: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        out, taus = state
        v, tau, beta = _reflector(out[:, j], j)
        applied = out - jnp.conj(tau) * jnp.outer(v, _dot(jnp.conj(v), out))
        out = jnp.where(columns > j, applied, out)
        column = jnp.where(rows < j, out[:, j], jnp.where(rows == j, beta, v))
        return out.at[:, j].set(column), taus.at[j].set(tau)

    k = min(m, n)
    return cast("tuple[Array, Array]", lax.fori_loop(0, k, step, (a, jnp.zeros((k,), a.dtype))))


def hessenberg(a: Array) -> tuple[Array, Array]:
    """LAPACK's xGEHD2 for one matrix: H on and above the first subdiagonal, the reflectors
    below it, and taus."""
    n = a.shape[0]
    rows = columns = jnp.arange(n)

    def step(k: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        out, taus = state
        v, tau, beta = _reflector(out[:, k], k + 1)
        right = out - tau * jnp.outer(_dot(out, v), jnp.conj(v))
        left = right - jnp.conj(tau) * jnp.outer(v, _dot(jnp.conj(v), right))
        out = jnp.where(columns > k, left, out)
        column = jnp.where(rows <= k, out[:, k], jnp.where(rows == k + 1, beta, v))
        return out.at[:, k].set(column), taus.at[k].set(tau)

    start = (a, jnp.zeros((max(n - 1, 0),), a.dtype))
    return cast("tuple[Array, Array]", lax.fori_loop(0, max(n - 1, 0), step, start))


def tridiagonal_lower(a: Array) -> tuple[Array, Array, Array, Array]:
    """LAPACK's xSYTD2 / xHETD2 with UPLO = 'L' for one matrix: (a with the reflectors below
    the subdiagonal, d and e on and below the diagonal, its upper triangle as given; d; e;
    taus), from a's lower triangle."""
    n = a.shape[0]
    rows = jnp.arange(n)
    real = np.finfo(a.dtype).dtype

    def step(i: Array, state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        h, low, taus = state
        v, tau, beta = _reflector(h[:, i], i + 1)
        x = jnp.where(rows > i, tau * _dot(h, v), 0)
        w = x - 0.5 * tau * jnp.sum(jnp.conj(x) * v) * v
        h = h - jnp.outer(v, jnp.conj(w)) - jnp.outer(w, jnp.conj(v))
        column = jnp.where(rows <= i, low[:, i], jnp.where(rows == i + 1, beta, v))
        return h, low.at[:, i].set(column), taus.at[i].set(tau)

    count = max(n - 1, 0)
    start = (hermitian_from(a, True), a, jnp.zeros((count,), a.dtype))
    h, low, taus = lax.fori_loop(0, count, step, start)
    d = jnp.real(jnp.diagonal(h)).astype(real)
    e = jnp.real(jnp.diagonal(low, -1)).astype(real)
    eye = jnp.eye(n, dtype=bool)
    out = jnp.where(eye, d.astype(a.dtype), jnp.where(jnp.tri(n, dtype=bool), low, a))
    return out, d, e, taus


def householder_product(a: Array, taus: Array) -> Array:
    """LAPACK's xORGQR/xUNGQR: the first n columns of H_1 ... H_k."""
    m, n = a.shape
    rows = jnp.arange(m)

    def step(i: Array, q: Array) -> Array:
        j = taus.shape[0] - 1 - i
        v = jnp.where(rows > j, a[:, j], jnp.where(rows == j, 1, 0)).astype(a.dtype)
        return q - taus[j] * jnp.outer(v, _dot(jnp.conj(v), q))

    return lax.fori_loop(0, taus.shape[0], step, jnp.eye(m, n, dtype=a.dtype))


def lu(a: Array) -> tuple[Array, Array, Array]:
    """LU with partial pivoting (LAPACK's xGETF2): factors, 0-based pivots, permutation.

    The pivot is the first row of largest magnitude, found with two plain reductions: IREE
    3.13 miscompiles the (value, index) reduction that `jnp.argmax` lowers to."""
    m, n = a.shape
    rows, columns = jnp.arange(m, dtype=np.int32), jnp.arange(n, dtype=np.int32)

    def step(j: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        out, pivots = state
        magnitude = jnp.where(rows >= j, jnp.abs(out[:, j]), -1)
        largest = jnp.max(magnitude)
        pivot = jnp.min(jnp.where(magnitude == largest, rows, m))
        pivot = jnp.where(pivot < m, pivot, j)
        top, chosen = out[j], out[pivot]
        out = out.at[pivot].set(top).at[j].set(chosen)
        multipliers = jnp.where(rows > j, out[:, j] / chosen[j], 0)
        update = jnp.outer(multipliers, jnp.where(columns > j, chosen, 0))
        out = jnp.where(
            (rows > j)[:, None] & (columns == j)[None, :], multipliers[:, None], out - update
        )
        return out, pivots.at[j].set(pivot.astype(np.int32))

    k = min(m, n)
    factors, pivots = lax.fori_loop(0, k, step, (a, jnp.zeros((k,), np.int32)))
    return factors, pivots, lax_linalg.lu_pivots_to_permutation(pivots, m)


def _made_real(a: Array, v: Array, q: Array, phase: Array) -> tuple[Array, Array]:
    """Column q of `a` and of `v` times conj(phase): the unitary change of basis that makes
    the coupling of columns p and q real (complex types only)."""
    return a.at[:, q].multiply(jnp.conj(phase)), v.at[:, q].multiply(jnp.conj(phase))


def _phase(x: Array) -> Array:
    """x / |x|, 1 where x is 0."""
    magnitude = jnp.abs(x)
    return jnp.where(magnitude != 0, x / jnp.where(magnitude != 0, magnitude, 1), 1)


def _rotate(state: tuple[Array, Array], p: Array, q: Array) -> tuple[Array, Array]:
    """One Jacobi rotation zeroing h[p, q] (Golub and Van Loan's sym.schur2); for a Hermitian
    h, after the change of basis that makes h[p, q] real."""
    h, v = state
    if jnp.iscomplexobj(h):
        phase = _phase(h[p, q])
        h, v = _made_real(h, v, q, phase)
        h = h.at[q].multiply(phase)
    hpq = jnp.real(h[p, q])
    nonzero = hpq != 0
    tau = jnp.real(h[q, q] - h[p, p]) / (2 * jnp.where(nonzero, hpq, 1))
    t = jnp.where(tau >= 0, 1, -1) / (jnp.abs(tau) + jnp.sqrt(1 + tau * tau))
    c = jnp.where(nonzero, 1 / jnp.sqrt(1 + t * t), 1)
    s = jnp.where(nonzero, t * c, 0)
    hp, hq = h[:, p], h[:, q]
    h = h.at[:, p].set(c * hp - s * hq).at[:, q].set(s * hp + c * hq)
    hp, hq = h[p], h[q]
    h = h.at[p].set(c * hp - s * hq).at[q].set(s * hp + c * hq)
    vp, vq = v[:, p], v[:, q]
    return h, v.at[:, p].set(c * vp - s * vq).at[:, q].set(s * vp + c * vq)


def jacobi_eigh(h: Array) -> tuple[Array, Array]:
    """(eigenvectors, eigenvalues ascending) of a real symmetric or complex Hermitian matrix,
    by cyclic Jacobi."""
    work, vectors = _sweeps(_rotate, h)
    return sort_pairs(jnp.real(jnp.diagonal(work)), vectors)


Rotation = Callable[[tuple[Array, Array], Array, Array], tuple[Array, Array]]


def _sweeps(rotation: Rotation, a: Array) -> tuple[Array, Array]:
    """`rotation` of (a, identity) at every pair of columns p < q, JACOBI_SWEEPS times over:
    a fixed count (convergence is quadratic, and a rotation of a zero is the identity), since
    IREE 3.13 miscompiled the loop that stopped on convergence."""
    n = a.shape[1]
    if n < 2:  # no pair of columns to rotate
        return a, jnp.eye(n, dtype=a.dtype)
    p, q = (jnp.asarray(i, np.int32) for i in np.triu_indices(n, 1))

    def sweep(_: Array, state: tuple[Array, Array]) -> tuple[Array, Array]:
        return cast(
            "tuple[Array, Array]",
            lax.fori_loop(0, p.shape[0], lambda k, st: rotation(st, p[k], q[k]), state),
        )

    count = JACOBI_SWEEPS[np.dtype(np.finfo(a.dtype).dtype).itemsize]
    return cast(
        "tuple[Array, Array]", lax.fori_loop(0, count, sweep, (a, jnp.eye(n, dtype=a.dtype)))
    )


def _orthogonalize(state: tuple[Array, Array], p: Array, q: Array) -> tuple[Array, Array]:
    """One Hestenes rotation making columns p and q of u orthogonal, applied to v too; for
    complex u, after the change of basis that makes their inner product real."""
    u, v = state
    if jnp.iscomplexobj(u):
        u, v = _made_real(u, v, q, _phase(jnp.sum(jnp.conj(u[:, p]) * u[:, q])))
    up, uq = u[:, p], u[:, q]
    alpha, beta = jnp.sum(jnp.abs(up) ** 2), jnp.sum(jnp.abs(uq) ** 2)
    gamma = jnp.real(jnp.sum(jnp.conj(up) * uq))
    nonzero = gamma != 0
    zeta = (beta - alpha) / (2 * jnp.where(nonzero, gamma, 1))
    t = jnp.where(zeta >= 0, 1, -1) / (jnp.abs(zeta) + jnp.sqrt(1 + zeta * zeta))
    c = jnp.where(nonzero, 1 / jnp.sqrt(1 + t * t), 1)
    s = jnp.where(nonzero, t * c, 0)
    u = u.at[:, p].set(c * up - s * uq).at[:, q].set(s * up + c * uq)
    vp, vq = v[:, p], v[:, q]
    return u, v.at[:, p].set(c * vp - s * vq).at[:, q].set(s * vp + c * vq)


def _adjoint(a: Array) -> Array:
    return jnp.conj(a.T)


def jacobi_svd(a: Array, full_matrices: bool) -> tuple[Array, Array, Array]:
    """(u, s descending, vh) of a real or complex matrix by one-sided (Hestenes) Jacobi; u
    completed to a unitary basis (where a singular value is 0, too) by Householder QR."""
    m, n = a.shape
    if m < n:
        u, s, vh = jacobi_svd(_adjoint(a), full_matrices)
        return _adjoint(vh), s, _adjoint(u)
    work, v = _sweeps(_orthogonalize, a)
    norms = jnp.sqrt(jnp.sum(jnp.abs(work) ** 2, axis=0))
    both, descending = sort_pairs(-norms, jnp.concatenate([work, v], axis=0))
    s, work, v = -descending, both[:m], both[m:]
    unit = work / jnp.where(s > 0, s, 1).astype(a.dtype)
    factors, taus = geqrf(jnp.concatenate([unit, jnp.eye(m, dtype=a.dtype)], axis=1))
    basis = householder_product(factors[:, :m], taus[:m])
    signs = jnp.where(jnp.real(jnp.diagonal(factors)[:m]) < 0, -1, 1).astype(a.dtype)
    u = basis * signs
    return (u if full_matrices else u[:, :n]), s, _adjoint(v)


def sort_pairs(values: Array, vectors: Array) -> tuple[Array, Array]:
    """(vectors, values) in ascending order of values, ties kept in order.  Ranks by pairwise
    comparison, then a gather: IREE lowers a float sort's total order through a bitcast that
    breaks where it narrows f64 to f32."""
    index = jnp.arange(values.shape[0], dtype=np.int32)
    below = (values[None, :] < values[:, None]) | (
        (values[None, :] == values[:, None]) & (index[None, :] < index[:, None])
    )
    rank = jnp.sum(below, axis=1, dtype=np.int32)
    source = jnp.sum(jnp.where(rank[None, :] == index[:, None], index[None, :], 0), axis=1)
    return vectors[:, source], values[source]


def hermitian_from(x: Array, lower: bool) -> Array:
    """The Hermitian matrix that x's lower (or upper) triangle and real diagonal define."""
    part = jnp.tril(x, -1) if lower else jnp.triu(x, 1)
    diagonal = jnp.real(jnp.diagonal(x, axis1=-2, axis2=-1)).astype(x.dtype)
    eye = jnp.eye(x.shape[-1], dtype=x.dtype)
    return part + jnp.conj(jnp.swapaxes(part, -1, -2)) + diagonal[..., None] * eye
