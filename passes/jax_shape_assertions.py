"""`shlo-jax-shape-assertions`: JAX's shape assertions checked at the module's shapes, then removed.

A shape-polymorphic `jax.export` checks at run time that the inputs fit its symbolic shapes
(`stablehlo.custom_call @shape_assertion(%ok, %dims...) {error_message = "...{0}..."}`), a call
no other consumer takes.  Once @main's arguments have static types (`stablehlo-refine-arguments`)
each condition is a constant: this pass computes them on a copy of @main's prologue (refining
the shapes of the code that follows could fail on the very inputs an assertion refuses), fails
with the assertion's own message, its `{N}` filled in, where one is false, and removes them all
where none is.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import functions, ops_in, set_results
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir, make_context, passmanager
from shlo.ir.worlds import ContextPolicy
from shlo.pipeline.python_pass import PassFailure, register_pass

ASSERTION = "shape_assertion"
_FOLD = "builtin.module(symbol-dce, stablehlo-refine-shapes, canonicalize)"


def assertions(operation: Any) -> list[Any]:
    return [
        op
        for op in ops_in(operation, "stablehlo.custom_call")
        if ir.StringAttr(op.attributes["call_target_name"]).value == ASSERTION
    ]


def _folded_prologue(module: Any) -> tuple[Any, list[Any]]:
    """A copy of the module whose @main keeps only what its assertions read, with shapes
    refined and constants folded, and its assertions (alive as long as the copy)."""
    context = make_context(ContextPolicy(threading=False))  # a pass manager of its own
    copy = ir.Module.parse(module.operation.get_asm(binary=True), context)
    with context:
        main = functions(copy)["main"]
        set_results(main, [])
        for call in reversed(ops_in(main, "func.call")):
            call.erase()
        passmanager.PassManager.parse(_FOLD).run(copy.operation)
    return copy, assertions(copy)


def _values(folded: Any, original: Any) -> list[int]:
    """The constant operands of a folded assertion, as integers (the condition first)."""
    found = []
    for operand in folded.operands:
        owner = operand.owner
        op = None if isinstance(owner, ir.Block) else owner.operation
        value = constant_value(op) if op is not None and op.name == "stablehlo.constant" else None
        if value is None:
            raise PassFailure(
                "a shape assertion depends on values known only at run time: give @main static "
                "argument types first (stablehlo-refine-arguments)", original)  # fmt: skip
        found.append(int(ir.DenseIntElementsAttr(value)[0]))
    return found


@register_pass("shlo-jax-shape-assertions")
def jax_shape_assertions(module: Any, options: None) -> None:
    """Check JAX's shape assertions at the module's static shapes; fail with the first one that
    does not hold, else remove them."""
    with module.context:
        found = assertions(module)
        if not found or "main" not in functions(module):
            return
        _copy, folded_ones = _folded_prologue(module)
        for original, folded in zip(found, folded_ones, strict=True):
            condition, *dims = _values(folded, original)
            if not condition:
                message = ir.StringAttr(folded.attributes["error_message"]).value
                raise PassFailure(message.format(*dims), original)
        for op in found:
            op.erase()
