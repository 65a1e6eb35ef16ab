"""Values a program computes from constants alone, computed when it is imported by PyTorch's
own kernels, and kept as constants.

Decompositions compute tables from sizes alone: an interpolation's source positions and
weights from `arange`, a mask from two `arange`s.  Compiled, IREE computes them with its own
arithmetic, which fuses a multiply into the add or subtract that uses it (one rounding where
eager rounds twice): the fraction of a bicubic upsampling's source position that eager makes
exactly 0 came out 1e-7, and the neighbour it weighs (an infinity there) gave inf where eager
gives NaN.  Each such value, up to `LIMIT` elements and computed by ops that are neither random
nor effectful, is computed here as eager computes it and enters the program as a constant,
as a tensor the model creates (`torch.tensor(...)`) does.  PyTorch's `run_decompositions`
cannot create such constants itself (those it lifts are missing from the program's table),
so this runs on the decomposed program.
"""

from __future__ import annotations

import operator
from typing import Any

import torch
from torch.export.graph_signature import (
    ExportGraphSignature,
    InputKind,
    InputSpec,
    TensorArgument,
)

aten = torch.ops.aten
# The most elements a value computed at import may have: a table, not a tensor of data.
LIMIT = 1 << 16
_PREFIX = "shlo_computed_"


def computed(node: torch.fx.Node, values: dict[torch.fx.Node, Any]) -> Any:
    """`node`'s value, computed by eager from its inputs' `values`."""
    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), values.__getitem__)
    assert callable(node.target)  # a call_function node
    with torch.no_grad():
        return node.target(*args, **kwargs)


def is_pure(node: torch.fx.Node) -> bool:
    """Whether `node` computes the same values on every run without effects: an ATen op that
    is not random, does not update its inputs, is not a check and does not leave its result
    uninitialized (or a tuple's element)."""
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        return True
    target = node.target
    if not isinstance(target, torch._ops.OpOverload):
        return False
    return not (
        torch.Tag.nondeterministic_seeded in target.tags
        or target._schema.is_mutable
        or target.__name__.split(".")[0] in _IMPURE
    )


# ATen ops that check, constrain or leave memory uninitialized, by name (without overload).
_IMPURE = frozenset({
    "_assert_async", "_assert_scalar", "_assert_tensor_metadata", "_linalg_check_errors",
    "sym_constrain_range", "sym_constrain_range_for_size", "_functional_assert_async",
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
})  # fmt: skip


def _small(value: Any) -> bool:
    """Whether `value` (a node's example value) is a real tensor of static shape within
    `LIMIT` elements, a tuple of them, or a plain number."""
    if isinstance(value, (tuple, list)):
        return all(_small(part) for part in value)
    if isinstance(value, torch.Tensor):
        static = all(isinstance(size, int) for size in value.shape)
        return static and not value.is_complex() and value.numel() <= LIMIT
    return isinstance(value, (bool, int, float))


def constants_evaluated(program: torch.export.ExportedProgram) -> None:
    """Compute, in place, each value `program` computes from constants alone (no input,
    parameter or buffer) and uses in a computation that reads anything else, and give it to
    the program as a constant."""
    graph = program.graph
    values: dict[torch.fx.Node, Any] = {}
    for node in graph.nodes:
        if not (
            is_pure(node)
            and all(source in values for source in node.all_input_nodes)
            and _small(node.meta.get("val"))
        ):
            continue
        try:
            values[node] = computed(node, values)
        except Exception:  # noqa: BLE001 (an op eager cannot run here stays in the module)
            continue
    kept = [
        node
        for node in values
        if node.all_input_nodes  # a bare `arange` or `full` lowers to a constant already
        and isinstance(values[node], torch.Tensor)
        and any(user not in values for user in node.users)
    ]
    if not kept:
        return
    signature = program.graph_signature
    first_input = next(
        (spec.arg.name for spec in signature.input_specs if spec.kind == InputKind.USER_INPUT),
        None,
    )
    anchor = next(
        (node for node in graph.nodes if node.op != "placeholder" or node.name == first_input),
    )
    specs = []
    for index, node in enumerate(kept):
        target = f"{_PREFIX}{index}"
        with graph.inserting_before(anchor):
            constant = graph.placeholder(target)
        constant.meta["val"] = node.meta["val"]
        # torch-mlir's importer puts a constant's tensor itself where the program uses it, and
        # rejects one inside a list (an index op's indices): a copy is a value like any other
        with graph.inserting_before(node):
            copy = graph.call_function(aten.clone.default, (constant,))
        copy.meta["val"] = node.meta["val"]
        node.replace_all_uses_with(copy)
        program.constants[target] = values[node].detach().clone().contiguous()
        specs.append(InputSpec(InputKind.CONSTANT_TENSOR, TensorArgument(constant.name), target))
    graph.eliminate_dead_code()
    inputs = list(signature.input_specs)
    at = next(
        (i for i, spec in enumerate(inputs) if spec.kind == InputKind.USER_INPUT), len(inputs)
    )
    # torch.export has no public way to add a constant to a program.
    program._graph_signature = ExportGraphSignature(
        [*inputs[:at], *specs, *inputs[at:]], list(signature.output_specs)
    )
    program.graph_module.recompile()
