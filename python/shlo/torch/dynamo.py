"""`torch.compile(model, backend="shlo")`: dynamo graphs through shlo's import -> flatten ->
compile -> run path.

    torch.compile(model, backend="shlo", options={"target": "vulkan", "fallback": False})

Options: `target` (llvm-cpu, vulkan, cuda, vmvx), `device` (default: the target's; for llvm-cpu
whichever of local-sync and local-task runs the graph faster on its example inputs),
`fallback` (default True): a graph shlo cannot compile then runs in eager, with a warning that
says why; with False the error is raised, and `cache` (default True): compiled graphs are kept
in memory and on disk (shlo.backend.cache), so another process skips iree-compile.  Dynamo's guards
decide when a graph is recompiled (a new input shape gets its own compile).

Under `torch.no_grad()` (or for a graph no gradient flows through) a graph compiles for
inference, its weights bound as constants.  Otherwise, as eager would, it keeps gradients:
AOTAutograd splits it into a forward and a backward graph and shlo compiles both, weights as
inputs, so `loss.backward()` and optimizer steps work; that costs a weight copy per call, so
wrap inference in `torch.no_grad()`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, cast

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch._subclasses.fake_tensor import unset_fake_temporarily

from shlo.errors import ShloError
from shlo.torch.compile_torch import compile_torch


class ShloFallbackWarning(UserWarning):
    """A graph ran in eager because shlo could not compile it."""


class _Frozen(torch.nn.Module):
    """The graph with dynamo's lifted parameters held as buffers: they compile as constants.

    Dynamo passes every parameter as a graph input on every call; copying all weights to the
    device per call cost more than the model.  Like inductor's freezing, weights are taken as
    they are at compile time (for inference; in-place weight updates are not seen).
    """

    def __init__(self, graph: torch.fx.GraphModule, inputs: tuple[Any, ...]) -> None:
        super().__init__()
        self.graph = graph
        self.slots = [i for i, x in enumerate(inputs) if isinstance(x, torch.nn.Parameter)]
        self._slot_set = frozenset(self.slots)
        for k, i in enumerate(self.slots):
            self.register_buffer(f"weight{k}", inputs[i].detach())

        returned = graph.graph.output_node().args[0]
        # AOTAutograd's backward graphs return None for inputs without a gradient; torch-mlir
        # cannot return None, so those are left out here and put back by `with_nones`.
        self.nones = (
            [i for i, value in enumerate(returned) if value is None]
            if isinstance(returned, (tuple, list))
            else []
        )

    def forward(self, *rest: Any) -> Any:
        args = list(rest)
        for k, i in enumerate(self.slots):
            args.insert(i, getattr(self, f"weight{k}"))
        outputs = self.graph(*args)
        if self.nones:
            return tuple(value for value in outputs if value is not None)
        return outputs

    def with_nones(self, outputs: Any) -> Any:
        """The graph's outputs from the compiled module's, the None ones put back."""
        if not self.nones:
            return outputs
        given = iter(outputs)
        count = len(outputs) + len(self.nones)
        return tuple(None if i in self.nones else next(given) for i in range(count))

    def others(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The arguments that are not lifted parameters (those were bound at compile time)."""
        return tuple(a for i, a in enumerate(args) if i not in self._slot_set)


def _compile_or_fallback(
    graph: torch.fx.GraphModule, inputs: tuple[Any, ...], options: dict[str, Any]
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
        if not frozen.slots and not frozen.nones:
            return compiled
        return lambda *args: frozen.with_nones(compiled(*frozen.others(args)))
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


def _shape_key(args: tuple[Any, ...]) -> tuple[Any, ...]:
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
    needs_grad = torch.is_grad_enabled() and any(_needs_grad(x) for x in example_inputs)
    return _per_concrete_shape(
        _training if needs_grad else _compile_or_fallback, graph, example_inputs, options
    )


# (graph, example inputs with concrete shapes, options) -> the graph's compiled callable
GraphCompiler = Callable[
    [torch.fx.GraphModule, tuple[Any, ...], dict[str, Any]], Callable[..., Any]
]


def _per_concrete_shape(
    compile_graph: GraphCompiler,
    graph: torch.fx.GraphModule,
    example_inputs: list[Any],
    options: dict[str, Any],
) -> Callable[..., Any]:
    """`compile_graph` on the example inputs, or, for a graph dynamo made shape-polymorphic,
    on each concrete shape it is called with."""
    if not any(isinstance(x, torch.SymInt) for x in example_inputs):
        return compile_graph(graph, tuple(example_inputs), options)
    compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}

    def run(*args: Any) -> Any:
        key = _shape_key(args)
        if key not in compiled:
            compiled[key] = compile_graph(graph, args, options)
        return compiled[key](*args)

    return run


def _needs_grad(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.requires_grad


def _training(
    graph: torch.fx.GraphModule, example_inputs: tuple[Any, ...], options: dict[str, Any]
) -> Callable[..., Any]:
    """A graph that gradients flow through: AOTAutograd splits it into a forward and a
    backward graph, and shlo compiles each (the weights are inputs, since training updates
    them)."""

    def compile_part(part: torch.fx.GraphModule, inputs: list[Any]) -> Callable[..., Any]:
        with unset_fake_temporarily():  # AOTAutograd compiles under its fake tensor mode
            real = tuple(_real(x) for x in inputs)
            return cast(
                "Callable[..., Any]", make_boxed_func(_compile_or_fallback(part, real, options))
            )

    backend = aot_autograd(fw_compiler=compile_part, bw_compiler=compile_part)
    return backend(graph, list(example_inputs))


def _real(value: Any) -> Any:
    """A real tensor like AOTAutograd's fake example `value`, for shlo to trace with."""
    if isinstance(value, torch.Tensor):
        return torch.zeros(value.shape, dtype=value.dtype)
    return value
