"""A compiled model on a device, called like the PyTorch model it came from."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.utils._pytree as pytree

from shlo.errors import RunError
from shlo.runtime.loaded import LoadedModule
from shlo.runtime.tensors import to_numpy, to_torch

if TYPE_CHECKING:
    from shlo.backend.compile import Compiled
    from shlo.frontend.torch_import import Imported


@dataclass
class CompiledModel:
    """The imported model's calling convention, its compiled module, and that module loaded.

    `parameters`: the .irpa archive the module reads its weights from, if it does not hold
    them; `owns` the private folder it lies in when `compile_torch` chose it, which goes
    when the last model loaded from it does."""

    imported: Imported
    compiled: Compiled
    loaded: LoadedModule
    parameters: Path | None = None
    owns: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        count = self.imported.positional_count or 0
        self._invoke = self.loaded.invoker(
            self.imported.function, [f"argument {i}" for i in range(count)]
        )

    def __repr__(self) -> str:
        weights = f", weights in {self.parameters}" if self.parameters else ""
        return (
            f"<CompiledModel @{self.imported.function} for {self.compiled.target.value} "
            f"on {self.loaded.device_name}{weights}>"
        )

    def on_device(self, device: str, parameters: str | Path | None = None) -> CompiledModel:
        """The same compiled module loaded on another device (with its own archive unless
        `parameters` names another)."""
        archive = Path(parameters) if parameters is not None else self.parameters
        loaded = LoadedModule(self.compiled.vmfb, device, archive)
        owns = self.owns if archive == self.parameters else None
        return CompiledModel(self.imported, self.compiled, loaded, archive, owns)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if (
            not kwargs
            and len(args) == self.imported.positional_count
            and all(map(_plain_tensor, args))
        ):
            # torch.compile's graphs and most models: CPU tensors in, positionally.
            outputs = self._as_declared(self._invoke([arg.detach().numpy() for arg in args]))
            return self.imported.unflatten_outputs([to_torch(o) for o in outputs])
        check_call(self.imported.in_spec, args, kwargs)
        arguments = self.imported.flatten_inputs(args, kwargs)
        names = [f"the model's state {name!r}" for name in self.imported.live_state]
        names += [name for name, _ in named_inputs(args, kwargs)]
        outputs = self.loaded(
            self.imported.function, *[to_numpy(a) for a in arguments], names=names
        )
        declared = self._as_declared(outputs)
        if any(isinstance(a, torch.Tensor) for a in (*arguments, *args, *kwargs.values())):
            return self.imported.unflatten_outputs([to_torch(o) for o in declared], arguments)
        return self.imported.unflatten_outputs(declared, arguments)

    def _as_declared(self, outputs: list[np.ndarray]) -> list[np.ndarray]:
        """Unsigned results as unsigned arrays (IREE returns their bits as signed ones)."""
        unsigned = self.imported.unsigned_results
        if not unsigned:
            return outputs
        return [o.view(unsigned[i]) if i in unsigned else o for i, o in enumerate(outputs)]


_INT64 = range(-(2**63), 2**63)


def check_call(in_spec: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """A call's mistakes in the caller's terms, before pytree compares structures (its message
    prints both tree specs): how many arguments, which keywords, each argument's structure, a
    meta tensor, a Python int beyond int64."""
    if in_spec is not None and in_spec.num_children == 2:
        positional, keywords = in_spec.child(0), in_spec.child(1)
        if positional.type is tuple and keywords.type is dict:
            _check_arguments(positional, keywords, args, kwargs)
    for name, value in named_inputs(args, kwargs):
        if isinstance(value, int) and not isinstance(value, bool) and value not in _INT64:
            raise RunError(f"{name}: the Python int {value} does not fit in int64")
        if value is None:
            raise RunError(f"{name} is None, where the model was compiled with a tensor")
        if isinstance(value, torch.Tensor) and value.is_meta:
            raise RunError(f"{name} is a meta tensor: it holds no values to compute with")


def _check_arguments(
    positional: Any, keywords: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """The count, the keywords and each argument's structure against the model's."""
    if len(args) != positional.num_children:
        keywords_given = f" and keyword arguments {', '.join(kwargs)}" if kwargs else ""
        raise RunError(
            f"expected {positional.num_children} arguments, got {len(args)}{keywords_given}"
            + ("; pass them by position, as the model was compiled" if kwargs else "")
        )
    wanted = dict(zip(keywords.context or [], keywords.children(), strict=True))
    if sorted(kwargs) != sorted(wanted):
        raise RunError(
            f"expected keyword arguments {', '.join(wanted) or 'none'}, "
            f"got {', '.join(kwargs) or 'none'}"
        )
    for name, value, spec in (
        *((f"argument {i}", a, positional.child(i)) for i, a in enumerate(args)),
        *((f"argument {k!r}", v, wanted[k]) for k, v in kwargs.items()),
    ):
        given = pytree.tree_structure(value)
        if given != spec:
            raise RunError(f"{name}: expected {_structure(spec)}, got {_structure(given)}")


def named_inputs(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
    """Each leaf of a call's arguments, named as the caller would point at it (`argument 0[1]`,
    `argument 'mask'`)."""
    named = []
    for path, leaf in pytree.tree_flatten_with_path((args, kwargs))[0]:
        _, key, *rest = path  # (args or kwargs, the position or keyword, the path inside)
        named.append((f"argument {pytree.keystr((key,))[1:-1]}{pytree.keystr(tuple(rest))}", leaf))
    return named


def _structure(spec: Any) -> str:
    """A tree spec in words: what one argument was, or should be."""
    if spec.is_leaf():
        return "a tensor or a number"
    if spec.type is type(None):
        return "None"
    return f"a {spec.type.__name__} of {spec.num_children}"


def _plain_tensor(value: Any) -> bool:
    return type(value) is torch.Tensor and value.is_cpu and value.dtype != torch.bfloat16
