"""JAX's pytrees without JAX: the structure of a function's inputs and outputs as JSON.

The child (`shlo.jax.child`) writes each `PyTreeDef` as a spec that this process rebuilds:

    3                       leaf number 3 of the flat list
    null                    None (no leaves)
    {"tuple": [...]}        {"list": [...]}        {"dict": [[key, spec], ...]}

Dict entries keep JAX's order (sorted keys), so flattening here visits leaves in JAX's order.
Other node types (namedtuples, dataclasses, custom nodes) are refused by name: the module's
interface would not say how to rebuild them.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

from shlo.errors import ShloError

Spec = Any  # int | None | dict[str, list]


class TreeError(ShloError, ValueError):
    """Arguments whose structure differs from the one the module was imported with."""


def spec_of(tree: Any) -> Spec:
    """The spec of `tree`, a pytree whose leaves are their numbers (as `jax.tree.unflatten`
    of the tree's definition over `range(n)` builds it)."""
    if tree is None or isinstance(tree, int):
        return tree
    if type(tree) is tuple:
        return {"tuple": [spec_of(item) for item in tree]}
    if type(tree) is list:
        return {"list": [spec_of(item) for item in tree]}
    if type(tree) is dict:
        return {"dict": [[key, spec_of(value)] for key, value in tree.items()]}
    raise TreeError(
        f"a pytree node of type {type(tree).__qualname__}: shlo takes tuples, lists, dicts "
        "and None around arrays"
    )


def flatten(spec: Spec, tree: Any, where: str = "arguments") -> list[Any]:
    """The leaves of `tree` in the order of `spec`, checked against its structure."""
    if isinstance(spec, int):
        return [tree]
    if spec is None:
        if tree is not None:
            raise TreeError(f"{where}: expected None, got {type(tree).__name__}")
        return []
    (kind, items), = spec.items()  # fmt: skip
    if kind == "dict":
        if not isinstance(tree, dict) or sorted(tree, key=str) != sorted(
            (k for k, _ in items), key=str
        ):
            keys = ", ".join(repr(k) for k, _ in items)
            raise TreeError(f"{where}: expected a dict with keys {keys}")
        return [leaf for key, sub in items for leaf in flatten(sub, tree[key], f"{where}[{key!r}]")]
    if not isinstance(tree, (tuple, list)) or len(tree) != len(items):
        raise TreeError(f"{where}: expected a {kind} of {len(items)}, got {_describe(tree)}")
    return [leaf for i, sub in enumerate(items) for leaf in flatten(sub, tree[i], f"{where}[{i}]")]


def unflatten(spec: Spec, leaves: Sequence[Any]) -> Any:
    """The tree `spec` describes, with `leaves` in place of the leaf numbers."""
    if isinstance(spec, int):
        return leaves[spec]
    if spec is None:
        return None
    (kind, items), = spec.items()  # fmt: skip
    if kind == "dict":
        return {key: unflatten(sub, leaves) for key, sub in items}
    built = [unflatten(sub, leaves) for sub in items]
    return tuple(built) if kind == "tuple" else built


def _describe(tree: Any) -> str:
    if isinstance(tree, (tuple, list)):
        return f"a {type(tree).__name__} of {len(tree)}"
    return f"a {type(tree).__name__}"


class RequestPickler(pickle.Pickler):
    """Pickles a request for the child with each array-like leaf (anything with a shape and a
    dtype: numpy and JAX arrays, `jax.ShapeDtypeStruct`) as its spec alone, so the values stay
    here and the child needs none of their classes.  A symbolic dimension goes by its name."""

    def persistent_id(self, obj: Any) -> Any:
        shape, dtype = getattr(obj, "shape", None), getattr(obj, "dtype", None)
        if isinstance(shape, tuple) and dtype is not None and not isinstance(obj, type):
            return ("spec", [d if isinstance(d, int) else str(d) for d in shape], str(dtype))
        return None
