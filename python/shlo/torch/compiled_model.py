"""A compiled model on a device, called like the PyTorch model it came from."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

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
        self._invoke = self.loaded.invoker(self.imported.function)

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
        outputs = self.loaded(self.imported.function, *[to_numpy(a) for a in arguments])
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
    prints both tree specs): how many arguments, which keywords, a Python int beyond int64."""
    if in_spec is not None and in_spec.num_children == 2:
        positional, keywords = in_spec.child(0), in_spec.child(1)
        if positional.type is tuple and len(args) != positional.num_children:
            raise RunError(f"expected {positional.num_children} arguments, got {len(args)}")
        if keywords.type is dict and sorted(kwargs) != sorted(keywords.context or []):
            wanted = ", ".join(keywords.context or []) or "none"
            raise RunError(
                f"expected keyword arguments {wanted}, got {', '.join(kwargs) or 'none'}"
            )
    named = [*(f"argument {i}" for i in range(len(args))), *(f"argument {k!r}" for k in kwargs)]
    for name, value in zip(named, [*args, *kwargs.values()], strict=True):
        if isinstance(value, int) and not isinstance(value, bool) and value not in _INT64:
            raise RunError(f"{name}: the Python int {value} does not fit in int64")


def _plain_tensor(value: Any) -> bool:
    return type(value) is torch.Tensor and value.is_cpu and value.dtype != torch.bfloat16
