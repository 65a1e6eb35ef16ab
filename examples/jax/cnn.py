"""A small CNN in JAX (`lax.conv_general_dilated`, NHWC, then pooling and a dense layer), its
weights fixed by a seed: `python cnn.py` saves an input and JAX's own output."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_rng = np.random.default_rng(0)
KERNEL = _rng.standard_normal((3, 3, 3, 8), dtype=np.float32) / 5  # HWIO
DENSE = _rng.standard_normal((8, 10), dtype=np.float32) / 3


@jax.jit
def cnn(images: jax.Array) -> jax.Array:
    """Logits for a batch of 16x16 RGB images (NHWC)."""
    features = lax.conv_general_dilated(
        images, KERNEL, window_strides=(1, 1), padding="SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )  # fmt: skip
    features = jax.nn.relu(features)
    pooled = lax.reduce_window(features, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jnp.mean(pooled, axis=(1, 2)) @ DENSE


if __name__ == "__main__":
    x = np.random.default_rng(1).standard_normal((2, 16, 16, 3), dtype=np.float32)
    np.save("x.npy", x)
    np.save("expected.npy", np.asarray(cnn(x)))
