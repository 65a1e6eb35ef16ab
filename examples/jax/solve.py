"""A linear solve in JAX (`jnp.linalg.solve`, an LU factorization on the CPU):
`python solve.py` saves a well-conditioned system and JAX's own solution."""

import jax
import jax.numpy as jnp
import numpy as np


@jax.jit
def solve(a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.linalg.solve(a, b)


if __name__ == "__main__":
    rng = np.random.default_rng(1)
    a = rng.standard_normal((4, 4), dtype=np.float32) + 4 * np.eye(4, dtype=np.float32)
    b = rng.standard_normal((4, 2), dtype=np.float32)
    np.save("a.npy", a)
    np.save("b.npy", b)
    np.save("expected.npy", np.asarray(solve(a, b)))
