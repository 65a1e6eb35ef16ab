"""`torch.compile(model, backend="shlo")`: dynamo graphs through shlo's import -> flatten ->
compile -> run path.

    torch.compile(model, backend="shlo", options={"target": "vulkan", "fallback": False})

Options: `target` (llvm-cpu, vulkan, cuda, vmvx), `device` (default: the target's), and
`fallback` (default True): a graph shlo cannot compile then runs in eager, with a warning that
says why; with False the error is raised.  Dynamo's guards decide when a graph is recompiled
(a new input shape gets its own compile).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

from shlo.api import compile_torch
from shlo.backend import CompileError
from shlo.frontend import FrontendError
from shlo.runtime import RunError


class ShloFallbackWarning(UserWarning):
    """A graph ran in eager because shlo could not compile it."""


def _compile_or_fallback(
    graph: torch.fx.GraphModule, inputs: tuple, options: dict[str, Any]
) -> Callable[..., Any]:
    try:
        return compile_torch(
            graph, inputs, target=options.get("target", "llvm-cpu"), device=options.get("device")
        )
    except (FrontendError, CompileError, RunError) as error:
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
