"""A two-layer MLP in JAX, its weights fixed by a seed: `python mlp.py` saves an input and
JAX's own output (x.npy, expected.npy) for `shlo run --expected-output`."""

import jax
import numpy as np

_rng = np.random.default_rng(0)
PARAMS = {
    "w1": _rng.standard_normal((8, 16), dtype=np.float32) / np.sqrt(8),
    "b1": _rng.standard_normal(16, dtype=np.float32) / 4,
    "w2": _rng.standard_normal((16, 4), dtype=np.float32) / 4,
    "b2": np.zeros(4, np.float32),
}


def forward(params: dict, x: jax.Array) -> jax.Array:
    """The MLP on a batch of rows, with its parameters as a pytree (a dict of arrays)."""
    hidden = jax.nn.relu(x @ params["w1"] + params["b1"])
    return jax.nn.softmax(hidden @ params["w2"] + params["b2"], axis=-1)


@jax.jit
def mlp(x: jax.Array) -> jax.Array:
    return forward(PARAMS, x)


if __name__ == "__main__":
    x = np.random.default_rng(1).standard_normal((2, 8), dtype=np.float32)
    np.save("x.npy", x)
    np.save("expected.npy", np.asarray(mlp(x)))
