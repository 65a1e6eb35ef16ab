"""What each of jaxlib's CPU LAPACK calls returns, written in JAX (JAX child process only).

jaxlib's lowerings (jax/_src/lax/linalg.py) call `lapack_<t><name>_ffi` with the matrix
batch-major and read back LAPACK's outputs: getrf's 1-based pivots and info, potrf's factor
over the untouched other triangle, geqrf's reflectors and taus, syevd's vectors and
ascending values, gesdd's (a, s, u, vt, info) by mode.  Each contract here returns the same
outputs, computed by the primitives that `linalg_algorithms.install()` lowers to plain
StableHLO, so that the call can be replaced by the function JAX lowers from it.
"""

from __future__ import annotations

from collections.abc import Callable

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.lax import linalg as lax_linalg

from shlo.jax.linalg_algorithms import (
    Array,
    batched,
    hermitian_from,
    hessenberg,
    tridiagonal_lower,
)
from shlo.passes.jax_linalg_calls import NO_ALGORITHM, routine

Contract = Callable[[list[Array], dict[str, int]], list[Array]]


def _first_zero(diagonal: Array) -> Array:
    """LAPACK's info: the 1-based index of the first zero (or NaN) on the diagonal, else 0."""
    n = diagonal.shape[-1]
    bad = ~(jnp.abs(diagonal) > 0)
    first = jnp.min(jnp.where(bad, jnp.arange(1, n + 1, dtype=np.int32), n + 1), axis=-1)
    return jnp.where(first <= n, first, 0)


def getrf(operands: list[Array], config: dict[str, int]) -> list[Array]:
    (a,) = operands
    lu, pivots, _ = lax.linalg.lu(a)
    diagonal = jnp.diagonal(lu, axis1=-2, axis2=-1)
    return [lu, pivots + 1, _first_zero(diagonal)]


def potrf(operands: list[Array], config: dict[str, int]) -> list[Array]:
    (a,) = operands
    lower = config.get("uplo", ord("L")) == ord("L")
    source = a if lower else jnp.conj(jnp.swapaxes(a, -1, -2))
    factor = lax.linalg.cholesky(jnp.tril(source), symmetrize_input=False)
    if not lower:
        factor = jnp.conj(jnp.swapaxes(factor, -1, -2))
    ones = jnp.ones(a.shape[-2:], bool)
    keep = jnp.tril(ones) if lower else jnp.triu(ones)
    info = _first_zero(jnp.diagonal(factor, axis1=-2, axis2=-1))
    return [jnp.where(keep, factor, a), info]


def geqrf(operands: list[Array], config: dict[str, int]) -> list[Array]:
    return list(lax_linalg.geqrf(operands[0]))


def orgqr(operands: list[Array], config: dict[str, int]) -> list[Array]:
    return [lax.linalg.householder_product(*operands)]


def syevd(operands: list[Array], config: dict[str, int]) -> list[Array]:
    (a,) = operands
    full = hermitian_from(a, config.get("uplo", ord("L")) == ord("L"))
    vectors, values = lax.linalg.eigh(full, lower=True, symmetrize_input=False)
    finite = jnp.all(jnp.isfinite(values), axis=-1)
    return [vectors, values, jnp.where(finite, 0, 1)]


def gesdd(operands: list[Array], config: dict[str, int]) -> list[Array]:
    (a,) = operands
    mode = chr(config.get("mode", ord("A")))
    if mode == "N":
        s = lax.linalg.svd(a, full_matrices=False, compute_uv=False)
        u = vt = None
    else:
        u, s, vt = lax.linalg.svd(a, full_matrices=mode == "A", compute_uv=True)
    finite = jnp.all(jnp.isfinite(s), axis=-1)
    return [a, s, u, vt, jnp.where(finite, 0, 1)]


def trsm(operands: list[Array], config: dict[str, int]) -> list[Array]:
    a, b = operands[:2]
    transpose = chr(config.get("trans_x", ord("N")))
    x = lax.linalg.triangular_solve(
        a,
        b,
        left_side=config.get("side", ord("L")) == ord("L"),
        lower=config.get("uplo", ord("L")) == ord("L"),
        transpose_a=transpose != "N",
        conjugate_a=transpose == "C",
        unit_diagonal=config.get("diag", ord("N")) == ord("U"),
    )
    return [x]


def gtsv(operands: list[Array], config: dict[str, int]) -> list[Array]:
    dl, d, du, b = operands
    x = lax.linalg.tridiagonal_solve(dl, d, du, b)
    finite = jnp.all(jnp.isfinite(x), axis=(-2, -1))
    return [dl, d, du, x, jnp.where(finite, 0, 1)]


def gehrd(operands: list[Array], config: dict[str, int]) -> list[Array]:
    (a,) = operands
    n = a.shape[-1]
    if (config.get("low", 1), config.get("high", n)) != (1, n):
        raise NotImplementedError("a Hessenberg reduction of part of the matrix (low, high)")
    out, taus = batched(hessenberg, 2, a)
    return [out, taus, jnp.zeros(a.shape[:-2], np.int32)]


def sytrd(operands: list[Array], config: dict[str, int]) -> list[Array]:
    (a,) = operands
    if config.get("uplo", ord("L")) != ord("L"):
        raise NotImplementedError("a tridiagonal reduction from the upper triangle")
    out, d, e, taus = batched(tridiagonal_lower, 2, a)
    return [out, d, e, taus, jnp.zeros(a.shape[:-2], np.int32)]


CONTRACTS: dict[str, Contract] = {
    "getrf": getrf,
    "potrf": potrf,
    "geqrf": geqrf,
    "orgqr": orgqr,
    "ungqr": orgqr,
    "syevd": syevd,
    "heevd": syevd,
    "gesdd": gesdd,
    "gesvd": gesdd,
    "trsm": trsm,
    "gtsv": gtsv,
    "gehrd": gehrd,
    "sytrd": sytrd,
    "hetrd": sytrd,
}


def contract(target: str) -> Contract:
    """The contract for `target`, or NotImplementedError saying why there is none."""
    name = routine(target) or ""
    if name in CONTRACTS:
        return CONTRACTS[name]
    if name in NO_ALGORITHM:
        raise NotImplementedError(f"no portable algorithm for the {NO_ALGORITHM[name]}")
    raise NotImplementedError("not one of jaxlib's LAPACK calls that shlo knows")


def shaped(results: list[Array | None], types: list[tuple[list[int], np.dtype]]) -> list[Array]:
    """The results cast to the call's result types; None becomes zeros (outputs a mode skips)."""
    out = []
    for value, (shape, dtype) in zip(results, types, strict=True):
        if value is None:
            value = jnp.zeros(shape, dtype)
        if tuple(value.shape) != tuple(shape):
            raise NotImplementedError(f"result shape {value.shape} is not the call's {shape}")
        out.append(value.astype(dtype))
    return out
