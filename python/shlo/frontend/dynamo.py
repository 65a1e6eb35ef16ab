"""`torch.compile(model, backend="shlo")`: dynamo graphs through shlo's import -> flatten ->
compile -> run path.

    torch.compile(model, backend="shlo", options={"target": "vulkan", "fallback": False})

Options: `target` (llvm-cpu, vulkan, cuda, vmvx), `device` (default: the target's; for llvm-cpu
whichever of local-sync and local-task runs the graph faster on its example inputs),
`fallback` (default True): a graph shlo cannot compile then runs in eager, with a warning that
says why; with False the error is raised, and `cache` (default True): compiled graphs are kept
in memory and on disk (shlo.backend.cache), so another process skips iree-compile.  Dynamo's guards
decide when a graph is recompiled (a new input shape gets its own compile).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from shlo.errors import ShloError
from shlo.runtime.compile_torch import compile_torch


class ShloFallbackWarning(UserWarning):
    """A graph ran in eager because shlo could not compile it."""


class _Frozen(torch.nn.Module):
    """The graph with dynamo's lifted parameters held as buffers: they compile as constants.

    Dynamo passes every parameter as a graph input on every call; copying all weights to the
    device per call cost more than the model.  Like inductor's freezing, weights are taken as
    they are at compile time (for inference; in-place weight updates are not seen).
    """

    def __init__(self, graph: torch.fx.GraphModule, inputs: tuple) -> None:
        super().__init__()
        self.graph = graph
        self.slots = [i for i, x in enumerate(inputs) if isinstance(x, torch.nn.Parameter)]
        self._slot_set = frozenset(self.slots)
        for k, i in enumerate(self.slots):
            self.register_buffer(f"weight{k}", inputs[i].detach())

    def forward(self, *rest: Any) -> Any:
        args = list(rest)
        for k, i in enumerate(self.slots):
            args.insert(i, getattr(self, f"weight{k}"))
        return self.graph(*args)

    def others(self, args: tuple) -> tuple:
        """The arguments that are not lifted parameters (those were bound at compile time)."""
        return tuple(a for i, a in enumerate(args) if i not in self._slot_set)


def _compile_or_fallback(
    graph: torch.fx.GraphModule, inputs: tuple, options: dict[str, Any]
) -> Callable[..., Any]:
    try:
        frozen = _Frozen(graph, inputs)
        kept = frozen.others(inputs)
        target = options.get("target", "llvm-cpu")
        compiled = compile_torch(
            frozen,
            kept,
            target=target,
            device=options.get("device"),
            use_cache=options.get("cache", True),
        )
        if not frozen.slots:
            return compiled
        return lambda *args: compiled(*frozen.others(args))
    except ShloError as error:
        if not options.get("fallback", True):
            raise
        reason = " ".join(line.strip() for line in str(error).splitlines()[:4])
        warnings.warn(
            f"shlo could not compile this graph, running it in eager: {reason}",
            ShloFallbackWarning,
            stacklevel=3,
        )
        return graph.forward


def _shape_key(args: tuple) -> tuple:
    return tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else a for a in args)


def shlo_backend(
    graph: torch.fx.GraphModule, example_inputs: list[Any], options: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """The dynamo backend: compile `graph` for the requested target, or fall back to eager.

    A graph dynamo made shape-polymorphic (SymInt inputs, after a shape change) is compiled
    once per concrete shape it is called with: IREE 3.13 cannot compile torch-mlir's dynamic
    dimensions, and a shape-specialized module is what runs fastest anyway.
    """
    options = dict(options or {})
    if not any(isinstance(x, torch.SymInt) for x in example_inputs):
        return _compile_or_fallback(graph, tuple(example_inputs), options)
    compiled: dict[tuple, Callable[..., Any]] = {}

    def run(*args: Any) -> Any:
        key = _shape_key(args)
        if key not in compiled:
            compiled[key] = _compile_or_fallback(graph, args, options)
        return compiled[key](*args)

    return run
