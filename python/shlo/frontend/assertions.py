"""Run-time assertions of an exported program, as extra boolean results checked after each call.

`torch._check(...)`, `aten._assert_scalar` and `sym_constrain_range` on a number read from a
tensor become `_assert_scalar` nodes, which torch-mlir lowers to `torch.runtime.assert`: no
StableHLO op has its meaning, so such a model could not be imported.  `torch._assert_async`
on a tensor (which torch-mlir dropped), and the linear-algebra ops that raise when a matrix
is singular or not positive-definite (`linalg.inv`, `linalg.solve`, `linalg.cholesky`,
`linalg.lu_factor`, an `_ex` form with `check_errors=True`: their `_linalg_check_errors(info,
...)`, an effectful op that export threads a token through), are the same kind of check.
Dropping them would compile a model that never checks what its author asked to check.
Instead each condition becomes a result of @main after the model's own, and the caller raises
the assertion's message when one comes back false (`Imported.unflatten_outputs`), where eager
raises it.

A condition that reads only the model's weights (its parameters, the buffers it never updates
and its constants) is decided when the model is imported, on the weights the compiled module
carries: dropped where it holds, the model refused with its message where it fails, so that a
model whose checks are all of that kind (a CNN's convolutions checking their weights) keeps a
signature without them and can be bundled.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.export._remove_effect_tokens_pass import _remove_effect_tokens
from torch.export.graph_signature import InputKind

from shlo.errors import AssertionFailed
from shlo.frontend.constant_values import computed, is_pure
from shlo.frontend.decompositions import RefusedOp

aten = torch.ops.aten
_BARE_ASSERT = "Expected Tensor with single nonzero value, but got zero"
# `_linalg_check_errors`'s message for a positive `info`, by the first word of the op's name
# that it contains, in the order eager tries them (`cholesky_inverse` is an inversion); eager's
# message also names the element or minor that failed, which a boolean result does not carry.
_LINALG_FAILURES = (
    ("inv", "The inversion could not be completed because the input matrix is singular."),
    ("solve", "The solver failed because the input matrix is singular."),
    (
        "cholesky",
        "The factorization could not be completed because the input is not positive-definite.",
    ),
    (
        "lu_factor",
        "U has a zero on its diagonal and using it on lu_solve would result in a division by "
        "zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
    ),
)


def bare_asserts_with_messages(module: torch.fx.GraphModule) -> None:
    """Give each `_assert_async` without a message eager's own, in place, before anything
    erases dead code: FX counts only the form with a message as effectful."""
    bare = [node for node in module.graph.nodes if node.target is aten._assert_async.default]
    for node in bare:
        node.target = aten._assert_async.msg
        node.args = (*node.args, _BARE_ASSERT)
    if bare:
        module.recompile()


def without_effect_tokens(program: torch.export.ExportedProgram) -> None:
    """Call each effectful op of `program` (`with_effects(token, op, ...)`) as a plain op, in
    place, its tokens removed from the signature: torch-mlir's importer takes no tokens, and
    the effects that reach here are checks, which `assertions_as_results` turns into results."""
    if any(node.target is torch.ops.higher_order.with_effects for node in program.graph.nodes):
        _remove_effect_tokens(program)


def _linalg_message(api: str) -> str:
    failure = next((text for word, text in _LINALG_FAILURES if word in api), "it failed.")
    return f"{api}: {failure}"


def _all_zero(graph: torch.fx.Graph, check: torch.fx.Node) -> torch.fx.Node:
    """A node before `check` that is true where each `info` of `_linalg_check_errors` is 0."""
    info = check.args[0]
    assert isinstance(info, torch.fx.Node)  # the info tensor of an _ex op
    fake = info.meta["val"]
    with graph.inserting_before(check):
        equal = graph.call_function(aten.eq.Scalar, (info, 0))
        every = graph.call_function(aten.all.default, (equal,))
    with fake.fake_mode:
        equal.meta["val"] = aten.eq.Scalar(fake, 0)
        every.meta["val"] = aten.all.default(equal.meta["val"])
    return every


def _weights(program: torch.export.ExportedProgram) -> dict[torch.fx.Node, torch.Tensor]:
    """The values of `program`'s inputs that are fixed when it is imported (parameters,
    buffers it never updates, constants), by placeholder."""
    signature = program.graph_signature
    updated = set(signature.buffers_to_mutate.values())
    fixed = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)
    values = {**program.constants, **program.state_dict}
    by_name = {
        spec.arg.name: values[spec.target]
        for spec in signature.input_specs
        if spec.kind in fixed and spec.target not in updated and spec.target in values
    }
    return {node: by_name[node.name] for node in program.graph.nodes if node.name in by_name}


def _decided_at_import(
    condition: torch.fx.Node, weights: dict[torch.fx.Node, torch.Tensor]
) -> bool | None:
    """`condition` computed from `weights` alone, or None where it reads anything else (an
    input, a buffer the model updates, a random number) or eager cannot compute it here."""
    needed: set[torch.fx.Node] = set()
    pending = [condition]
    while pending:
        node = pending.pop()
        if node in needed or node in weights:
            continue
        if not is_pure(node):
            return None
        needed.add(node)
        pending.extend(node.all_input_nodes)
    values: dict[torch.fx.Node, Any] = dict(weights)
    try:
        for node in condition.graph.nodes:  # in graph order: each node after its inputs
            if node in needed:
                values[node] = computed(node, values)
    except Exception:  # noqa: BLE001 (checked at run time instead)
        return None
    return bool(values[condition])


def assertions_as_results(program: torch.export.ExportedProgram) -> tuple[str, ...]:
    """Turn, in place, each `_assert_scalar`, `_assert_async.msg` and `_linalg_check_errors` of
    `program` into a result appended to its outputs; returns their messages in that order.  A
    condition already known true, or true of the weights alone, is dropped; one that the
    weights alone make false refuses the model."""
    graph = program.graph
    weights = _weights(program)
    messages = []
    conditions = []
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if node.target is aten._linalg_check_errors.default:
            condition: Any = _all_zero(graph, node)
            message = _linalg_message(str(node.args[1]))
        elif node.target in (aten._assert_scalar.default, aten._assert_async.msg):
            condition = node.args[0]
            message = str(node.args[1]) if len(node.args) > 1 else "assertion failed"
        else:
            continue
        if isinstance(condition, torch.fx.Node):
            decided = _decided_at_import(condition, weights)
            if decided is False:
                raise RefusedOp(f"the model's weights fail its check: {message}")
            if decided is None:
                conditions.append(condition)
                messages.append(message)
        elif not condition:
            continue  # fails on every input: left for the import to report
        graph.erase_node(node)
    if conditions:
        output = graph.output_node()
        results = output.args[0]
        assert isinstance(results, (tuple, list))  # an exported graph returns a sequence
        output.args = ((*results, *conditions),)
    return tuple(messages)


def check(results: list[Any], messages: tuple[str, ...]) -> list[Any]:
    """`results` without the trailing assertion results, after raising `AssertionFailed` with
    the first failed one's message."""
    if not messages:
        return results
    kept = len(results) - len(messages)
    for held, message in zip(results[kept:], messages, strict=True):
        if not bool(held):
            raise AssertionFailed(message)
    return results[:kept]
