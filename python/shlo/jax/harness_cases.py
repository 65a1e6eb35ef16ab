"""The JAX programs the yardsticks export (JAX child process only): linear algebra as users
call it, and JAX's own primitive test harnesses.

Each case is a name that `program(name, dtype)` turns into (function, example arguments).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
from jax import lax

Program = tuple[Callable[..., Any], list[np.ndarray]]


def _random(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.standard_normal(shape)
    return values.astype(dtype)


def _spd(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    a = _random(shape, dtype, seed)
    n = shape[-1]
    return cast(np.ndarray, (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype))


def _ill(shape: tuple[int, ...], dtype: str, seed: int) -> np.ndarray:
    """A matrix with singular values from 1 down to 1e-4 (cond 1e4), random singular vectors."""
    q1, _ = np.linalg.qr(_random(shape, "float64", seed))
    q2, _ = np.linalg.qr(_random(shape, "float64", seed + 1))
    s = np.logspace(0, -4, shape[-1])
    return cast(np.ndarray, (q1 * s[..., None, :] @ q2).astype(dtype))


# name -> (function, input maker, input shapes)
LINALG: dict[str, tuple[Callable[..., Any], Callable[..., np.ndarray], list[tuple[int, ...]]]] = {
    "solve": (jnp.linalg.solve, _random, [(5, 5), (5, 3)]),
    "solve_batched_ill": (jnp.linalg.solve, _ill, [(3, 6, 6), (3, 6, 2)]),
    "inv": (jnp.linalg.inv, _random, [(2, 6, 6)]),
    "det": (jnp.linalg.det, _random, [(3, 4, 4)]),
    "slogdet": (lambda a: tuple(jnp.linalg.slogdet(a)), _random, [(2, 5, 5)]),
    "lu": (lambda a: tuple(lax.linalg.lu(a)), _random, [(2, 5, 4)]),
    "lu_scipy": (lambda a: tuple(jsl.lu(a)), _ill, [(6, 6)]),
    "cholesky": (jnp.linalg.cholesky, _spd, [(2, 5, 5)]),
    "cholesky_upper": (lambda a: jsl.cholesky(a, lower=False), _spd, [(4, 4)]),
    "qr": (lambda a: tuple(jnp.linalg.qr(a)), _random, [(2, 6, 4)]),
    "qr_complete": (lambda a: tuple(jnp.linalg.qr(a, mode="complete")), _random, [(5, 3)]),
    "qr_wide": (lambda a: tuple(jnp.linalg.qr(a)), _random, [(3, 5)]),
    "eigh": (lambda a: tuple(jnp.linalg.eigh(a)), _spd, [(2, 6, 6)]),
    "eigvalsh_upper": (lambda a: jnp.linalg.eigvalsh(a, UPLO="U"), _random, [(5, 5)]),
    "svd": (lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), _random, [(2, 6, 4)]),
    "svd_full": (lambda a: tuple(jnp.linalg.svd(a)), _random, [(4, 6)]),
    "svdvals_ill": (lambda a: jnp.linalg.svd(a, compute_uv=False), _ill, [(6, 6)]),
    "triangular_solve": (
        lambda a, b: jsl.solve_triangular(a, b, lower=True, trans=1),
        _random,
        [(5, 5), (5, 2)],
    ),
    "triangular_solve_right": (
        lambda a, b: lax.linalg.triangular_solve(a, b, left_side=False, lower=False),
        _random,
        [(4, 4), (3, 4)],
    ),
    "tridiagonal_solve": (
        lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d + 4, du, b),
        _random,
        [(6,), (6,), (6,), (6, 2)],
    ),
    "pinv": (jnp.linalg.pinv, _random, [(5, 3)]),
    "eig": (lambda a: tuple(jnp.linalg.eig(a)), _random, [(4, 4)]),
}


def linalg_program(name: str, dtype: str) -> Program:
    """A linear-algebra case: the function and its inputs (seeded by the case's name)."""
    function, maker, shapes = LINALG[name]
    seed = sum(map(ord, name))
    first, *rest = shapes
    others = [_random(shape, dtype, seed + 1 + i) for i, shape in enumerate(rest)]
    return function, [maker(first, dtype, seed), *others]


def primitive_harnesses() -> dict[str, Any]:
    """JAX's primitive test harnesses by name (`test_harnesses.all_harnesses`)."""
    from jax._src.internal_test_util import test_harnesses

    return {h.fullname: h for h in test_harnesses.all_harnesses}


def back_compat_data() -> dict[str, dict[str, Any]]:
    """JAX's export back-compatibility data sets serialized for the CPU, by name
    (`module.data_date[key]`): the `cpu_*` LAPACK sets and the platform-neutral ones (dynamic
    shapes) that JAX serialized on the CPU."""
    import importlib
    import pkgutil

    from jax._src.internal_test_util import export_back_compat_test_data as package

    found: dict[str, dict[str, Any]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for attribute, value in vars(module).items():
            if not attribute.startswith("data_") or not isinstance(value, dict):
                continue
            sets = {"": value} if "platform" in value else value
            for key, data in sets.items():
                if isinstance(data, dict) and data.get("platform") == "cpu":
                    found[f"{info.name}.{attribute}" + (f"[{key}]" if key else "")] = data
    return found


def harness_program(harness: Any) -> Program:
    """A primitive harness's function and its arguments (JAX's own seeded inputs)."""
    args = harness.dyn_args_maker(np.random.RandomState(0))
    return harness.dyn_fun, [np.asarray(a) for a in args]
