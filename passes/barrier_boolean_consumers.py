"""`shlo-barrier-boolean-consumers`: a contraction's result is written out before an op that
also reads a boolean tensor uses it.

IREE 3.13's data tiling on llvm-cpu (`--iree-opt-data-tiling`) fuses a matmul's or a
convolution's elementwise consumers into its dispatch and packs their other operands into the
result's tiled layout.  A boolean (`i1`) operand is stored as `i8`, and the pack it gets is
typed `i1` against `i8` storage, so the compile fails (`'linalg.pack' op expected padding_value
has 'i8' but got: 'i1'`, or an `iree_codegen.load_from_buffer` error): `torch.where(mask,
-inf, q @ k.T)`, a causal or padding mask applied to attention scores, did not compile at any
shape.  This pass puts an `optimization_barrier` between such an op and each of its operands
that a contraction computes through the ops IREE fuses with it, so the contraction's dispatch
ends there and the boolean operand is read untiled by the next one.  A boolean the
contraction's own result computes is made inside the dispatch and needs none, and an op that
waits for a reduction of the result (a softmax's probabilities, masked where a row was all
-inf) is in a dispatch of its own already.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import barrier_operands, rewrite_each
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

_CONTRACTIONS = ("stablehlo.dot_general", "stablehlo.convolution")
# Ops a contraction's dispatch does not reach through.
_ROOTS = ("stablehlo.reduce", "stablehlo.optimization_barrier", "stablehlo.custom_call")
_DEPTH = 12
_RESHAPES = ("stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.convert")


def _boolean_tensor(value: Any) -> bool:
    kind = value.type
    if not isinstance(kind, ir.RankedTensorType) or kind.rank == 0:
        return False
    element = kind.element_type
    return isinstance(element, ir.IntegerType) and element.width == 1


class _Producers:
    """What the ops feeding a value are, each value asked once: a graph's values are shared by
    many consumers, and asking again along every path took time exponential in the depth."""

    def __init__(self) -> None:
        self._contracted: dict[Any, bool] = {}

    def contracted(self, value: Any, depth: int = _DEPTH) -> bool:
        """Whether `value` is computed by a contraction, through ops that fuse with it: not an
        op that also waits for a reduction of the contraction's result (a softmax's exponential
        of the scores minus their maximum), which IREE cannot compute in the contraction's
        dispatch."""
        if value not in self._contracted:
            self._contracted[value] = self._computed(value, depth)
        return self._contracted[value]

    def _computed(self, value: Any, depth: int) -> bool:
        producer = value.owner
        if depth == 0 or not isinstance(producer, ir.OpView) or producer.name in _ROOTS:
            return False
        if producer.name in _CONTRACTIONS:
            return True
        operands = list(producer.operands)
        if any(self._reduces_a_contraction(operand, depth - 1) for operand in operands):
            return False
        return any(self.contracted(operand, depth - 1) for operand in operands)

    def _reduces_a_contraction(self, value: Any, depth: int) -> bool:
        """Whether `value` is, but for a broadcast or a reshape, a reduction of a contraction's
        result."""
        producer = value.owner
        while isinstance(producer, ir.OpView) and producer.name in _RESHAPES and depth > 0:
            producer, depth = producer.operands[0].owner, depth - 1
        if not isinstance(producer, ir.OpView) or producer.name != "stablehlo.reduce":
            return False
        return any(self.contracted(operand, depth - 1) for operand in producer.operands)


def _barrier(op: Any, producers: _Producers) -> None:
    if not op.name.startswith("stablehlo.") or op.name in _CONTRACTIONS + _ROOTS:
        return
    booleans = [value for value in op.operands if _boolean_tensor(value)]
    # a boolean the contraction's own result computes is made inside its dispatch, not packed
    if all(producers.contracted(value) for value in booleans):
        return
    barrier_operands(op, lambda value: not _boolean_tensor(value) and producers.contracted(value))


@register_pass("shlo-barrier-boolean-consumers")
def barrier_boolean_consumers(module: Any, options: None) -> None:
    """Write each contraction result out before an op that also reads a boolean tensor."""
    producers = _Producers()
    rewrite_each(module, None, lambda op: _barrier(op, producers))
