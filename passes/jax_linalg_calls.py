"""jaxlib's CPU LAPACK custom calls by name: which ones shlo replaces, and why not the rest.

Not a pass: the table that `shlo-jax-linalg` and `shlo-check-support` share with the JAX child
that writes the replacements (shlo.jax.linalg_contracts), kept without imports so that each
reads it from below.
"""

from __future__ import annotations

import re

# `lapack_sgetrf_ffi` -> ("s", "getrf"): the type letter and LAPACK's routine
TARGET = re.compile(r"^lapack_([sdcz])([a-z0-9]+)_ffi$")
# Routines replaced by portable StableHLO, each with what it computes.
REWRITTEN = {
    "getrf": "LU decomposition",
    "potrf": "Cholesky factorization",
    "geqrf": "QR factorization",
    "orgqr": "Q from a QR factorization",
    "ungqr": "Q from a QR factorization",
    "syevd": "symmetric eigen-decomposition",
    "heevd": "Hermitian eigen-decomposition",
    "gesdd": "singular value decomposition",
    "gesvd": "singular value decomposition",
    "trsm": "triangular solve",
    "gtsv": "tridiagonal solve",
    "gehrd": "Hessenberg reduction",
    "sytrd": "tridiagonal reduction",
    "hetrd": "tridiagonal reduction",
}
# Routines jaxlib calls that JAX has no portable algorithm for.
NO_ALGORITHM = {
    "geev": "general eigen-decomposition",
    "gees": "Schur decomposition",
    "ormqr": "product with Q from a QR factorization",
    "unmqr": "product with Q from a QR factorization",
    "geqp3": "pivoted QR factorization",
}
# Other CPU custom calls of jaxlib's that no consumer but XLA:CPU runs.
OTHER_CPU_CALLS = {"tridiagonal_solve_perturbed_ffi": "perturbed tridiagonal solve"}


def routine(target: str) -> str | None:
    """LAPACK's routine name for a `lapack_<t><routine>_ffi` target, else None."""
    matched = TARGET.match(target)
    return matched.group(2) if matched else None


def describe(target: str) -> str | None:
    """What the call computes and whether shlo replaces it; None for other custom calls."""
    name = routine(target)
    if name in REWRITTEN:
        return f"{target} ({REWRITTEN[name]}): the jax profile rewrites it (shlo-jax-linalg)"
    what = NO_ALGORITHM.get(name or "") or OTHER_CPU_CALLS.get(target)
    if what is None and name is None:
        return None
    what = what or "an unknown LAPACK routine"
    return f"{target} ({what}): only XLA:CPU runs it, and shlo has no portable replacement"
