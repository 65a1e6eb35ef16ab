"""The JAX child that writes the StableHLO replacing each LAPACK call it is sent.

It first makes this process lower JAX's linear algebra on CPU to portable algorithms
(`install`): JAX's own where it has one (its tridiagonal solver), else those of
`shlo.jax.linalg_algorithms`.

    python -m shlo.jax.linalg_child < calls.json > replacements.json

In: a JSON list of calls, each {"target", "operands", "results": [[shape, element type]],
"config": {attribute: integer}}.  Out: a list of {"text": StableHLO module} or
{"refused": reason}, in order.  Runs apart from shlo's MLIR bindings: jaxlib is never
imported beside them.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import jax
import numpy as np
from jax._src.interpreters import mlir
from jax._src.lax import linalg as lax_linalg

from shlo.jax.linalg_algorithms import (
    Array,
    batched,
    cholesky_lower,
    geqrf,
    hermitian_from,
    householder_product,
    jacobi_eigh,
    jacobi_svd,
    lu,
    triangular_solve,
)

ELEMENTS = {
    "f32": np.float32,
    "f64": np.float64,
    "complex<f32>": np.complex64,
    "complex<f64>": np.complex128,
    "i32": np.int32,
    "i64": np.int64,
}


def _lower_with(fn: Any, multiple_results: bool = True) -> None:
    primitive, impl = fn
    mlir.register_lowering(
        primitive, mlir.lower_fun(impl, multiple_results=multiple_results), platform="cpu"
    )


def _lu(x: Array) -> list[Array]:
    return list(batched(lu, 2, x))


def _cholesky(x: Array) -> Array:
    return batched(cholesky_lower, 2, x)


def _triangular(a: Array, b: Array, **kwargs: Any) -> Array:
    return batched(lambda a1, b1: triangular_solve(a1, b1, **kwargs), 2, a, b)


def _geqrf(a: Array) -> list[Array]:
    return list(batched(geqrf, 2, a))


def _householder(a: Array, taus: Array) -> Array:
    return batched(householder_product, 2, a, taus)


def _eigh(x: Array, *, lower: bool, **_: Any) -> list[Array]:
    full = hermitian_from(x, lower)
    return list(batched(jacobi_eigh, 2, full))


def _svd(a: Array, *, full_matrices: bool, compute_uv: bool, **_: Any) -> list[Array]:
    u, s, vh = batched(lambda m: jacobi_svd(m, full_matrices), 2, a)
    return [s, u, vh] if compute_uv else [s]


def install() -> None:
    """Make this process lower JAX's linear algebra on CPU to plain StableHLO."""
    _lower_with((lax_linalg.cholesky_p, _cholesky), multiple_results=False)
    _lower_with((lax_linalg.triangular_solve_p, _triangular), multiple_results=False)
    _lower_with((lax_linalg.geqrf_p, _geqrf))
    _lower_with((lax_linalg.householder_product_p, _householder), multiple_results=False)
    _lower_with((lax_linalg.lu_p, _lu))
    _lower_with((lax_linalg.eigh_p, _eigh))
    _lower_with((lax_linalg.svd_p, _svd))
    _lower_with(
        (lax_linalg.tridiagonal_solve_p, lax_linalg._tridiagonal_solve_jax), multiple_results=False
    )


def _types(listed: list[list[Any]]) -> list[tuple[list[int], np.dtype]]:
    return [(shape, np.dtype(ELEMENTS[element])) for shape, element in listed]


def replacement(call: dict[str, Any]) -> dict[str, str]:
    """The module whose @main computes the call's results, or why there is none."""
    from shlo.jax import linalg_contracts

    wide = any("64" in element for _, element in call["operands"])
    jax.config.update("jax_enable_x64", wide)  # type: ignore[no-untyped-call]
    try:
        operands = _types(call["operands"])
        results = _types(call["results"])
        contract = linalg_contracts.contract(call["target"])

        def main(*args: Any) -> list[Any]:
            out = contract(list(args), call["config"])
            return linalg_contracts.shaped(out, results)

        specs = [
            jax.ShapeDtypeStruct(tuple(shape), dtype)  # type: ignore[no-untyped-call]
            for shape, dtype in operands
        ]
        text = jax.jit(main).lower(*specs).as_text(debug_info=False)
    except Exception as error:  # JAX could not write it: the call is refused with the reason
        first = (str(error).strip().splitlines() or [""])[0]
        return {"refused": f"JAX could not write a replacement: {type(error).__name__}: {first}"}
    if "stablehlo.custom_call" in text:
        return {"refused": "JAX's replacement still calls a custom call"}
    return {"text": text}


def main() -> int:
    jax.config.update("jax_platforms", "cpu")  # type: ignore[no-untyped-call]
    install()
    calls = json.load(sys.stdin)
    json.dump([replacement(call) for call in calls], sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
