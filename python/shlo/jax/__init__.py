"""JAX end to end: functions and `jax.export` artifacts imported in JAX's own child process
(`importer`, `child`), flattened by the `jax` profile (`profile`), compiled and called like the
function (`compiled`), and XLA:CPU as a reference for `shlo compare` (`xla_cpu`).  Nothing
here imports jax into shlo's process; the modules that import it run only in children.
"""
