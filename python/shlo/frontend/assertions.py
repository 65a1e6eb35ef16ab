"""Run-time assertions of an exported program, as extra boolean results checked after each call.

`torch._check(...)`, `aten._assert_scalar` and `sym_constrain_range` on a number read from a
tensor become `_assert_scalar` nodes, which torch-mlir lowers to `torch.runtime.assert`: no
StableHLO op has its meaning, so such a model could not be imported.  Dropping them would
compile a model that never checks what its author asked to check.  Instead each condition
becomes a result of @main after the model's own, and the caller raises the assertion's message
when one comes back false (`Imported.unflatten_outputs`), where eager raises it.
"""

from __future__ import annotations

from typing import Any

import torch

from shlo.errors import AssertionFailed

aten = torch.ops.aten


def assertions_as_results(graph: torch.fx.Graph) -> tuple[str, ...]:
    """Turn, in place, each `_assert_scalar` of `graph` into a result appended to its outputs;
    returns their messages in that order.  A condition already known true is dropped."""
    messages = []
    conditions = []
    for node in list(graph.nodes):
        if node.op != "call_function" or node.target is not aten._assert_scalar.default:
            continue
        condition = node.args[0]
        if isinstance(condition, torch.fx.Node):
            conditions.append(condition)
            messages.append(str(node.args[1]) if len(node.args) > 1 else "assertion failed")
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
