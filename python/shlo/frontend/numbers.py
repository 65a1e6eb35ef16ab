"""Python numbers a model takes, kept as runtime inputs.

torch.export bakes a float or int argument into the graph as a constant, so a compiled model
called with another value would silently compute with the first.  Here each such number
travels as a 0-d tensor that the model sees as a number again (`.item()`).  A number that
decides a shape or a branch cannot be a runtime input: it stays fixed, and a call with another
value is refused (`check_fixed`).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import torch
from torch.utils import _pytree as pytree

_INT64 = (-(2**63), 2**63 - 1)


def is_number(value: Any) -> bool:
    """A Python int or float that can travel as a 0-d tensor (bool is not: it decides
    branches, so it stays fixed; nor is an int beyond int64: the graph keeps it as eager does)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _INT64[0] <= value <= _INT64[1]
    return isinstance(value, float)


def number_dtypes(leaves: list[Any]) -> dict[int, np.dtype]:
    """Leaf index -> the dtype each number travels as: int64 for ints; floats at float64 when
    a float64 tensor is among the inputs, else float32 (torch computes with a Python float in
    the tensor's dtype, so rounding it to float32 first changes nothing)."""
    wide = any(isinstance(leaf, torch.Tensor) and leaf.dtype == torch.float64 for leaf in leaves)
    real = np.dtype(np.float64 if wide else np.float32)
    return {
        index: np.dtype(np.int64) if isinstance(leaf, int) else real
        for index, leaf in enumerate(leaves)
        if is_number(leaf)
    }


def as_tensors(leaves: list[Any], dtypes: dict[int, np.dtype]) -> list[Any]:
    """`leaves` with each number at an index of `dtypes` as a 0-d tensor of that dtype."""
    return [
        torch.from_numpy(np.asarray(leaf, dtype=dtypes[index])) if index in dtypes else leaf
        for index, leaf in enumerate(leaves)
    ]


def as_arrays(leaves: list[Any], dtypes: dict[int, np.dtype]) -> list[Any]:
    """`leaves` with each number at an index of `dtypes` as a 0-d array of that dtype."""
    for index, dtype in dtypes.items():
        value = leaves[index]
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu().numpy()
        leaves[index] = np.asarray(value, dtype=dtype)
    return leaves


class NumbersAsTensors(torch.nn.Module):
    """The model, taking 0-d tensors where it takes numbers and calling it with the numbers."""

    PREFIX = "model."  # what the wrapped model's parameter and buffer names start with here

    def __init__(self, model: torch.nn.Module, indices: frozenset[int], in_spec: Any) -> None:
        super().__init__()
        self.model, self.indices, self.in_spec = model, indices, in_spec

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        leaves = pytree.tree_leaves((args, kwargs))
        numbers = [leaf.item() if i in self.indices else leaf for i, leaf in enumerate(leaves)]
        args, kwargs = pytree.tree_unflatten(numbers, self.in_spec)
        return self.model(*args, **kwargs)


def fixed_values(leaves: list[Any]) -> dict[int, Any]:
    """Leaf index -> value of every leaf that is not a tensor: what the graph was traced with."""
    return {i: leaf for i, leaf in enumerate(leaves) if not isinstance(leaf, torch.Tensor)}


def check_fixed(inputs: Any, leaves: list[Any], fixed: dict[int, Any]) -> str | None:
    """Why a call with `inputs` (flattened: `leaves`) cannot run a graph traced with `fixed`,
    or None if it can."""
    for index, want in fixed.items():
        got = leaves[index]
        if not _same(got, want):
            path, _ = pytree.tree_flatten_with_path(inputs)[0][index]
            return (
                f"argument {_name(path)} was {want!r} when the model was compiled, and the "
                f"compiled model is specialized to that value (it decides a shape or a branch);"
                f" got {got!r}: compile again with this value"
            )
    return None


def check_numbers(inputs: Any, leaves: list[Any], dtypes: dict[int, np.dtype]) -> str | None:
    """Why the numbers among `leaves` cannot go where the compiled model takes numbers (another
    type than it was compiled with: eager would promote differently; an int beyond int64), or
    None if they can."""
    for index, dtype in dtypes.items():
        got = leaves[index]
        if isinstance(got, torch.Tensor):
            continue
        kind = "an int" if dtype.kind == "i" else "a float"
        number = isinstance(got, (int, float)) and not isinstance(got, bool)
        problem = None
        if not number or isinstance(got, int) != (kind == "an int"):
            problem = f"is {type(got).__name__} {got!r}, and the model was compiled with {kind}"
            problem += ": compile again with this type" if number else ""
        elif not is_number(got):
            problem = f"{got} is beyond int64, the type it travels as"
        if problem:
            path, _ = pytree.tree_flatten_with_path(inputs)[0][index]
            return f"argument {_name(path)} {problem}"
    return None


def _name(path: tuple[Any, ...]) -> str:
    """`args[1]` or `s` (a keyword argument) for a leaf of ((args...), {kwargs})."""
    where, *rest = path
    head = f"args[{rest[0].idx}]" if where.idx == 0 else str(rest[0].key)
    return head + pytree.keystr(tuple(rest[1:]))


def _same(got: Any, want: Any) -> bool:
    if type(got) is not type(want):
        return False
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    return cast(bool, got == want)
