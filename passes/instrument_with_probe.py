"""`interpreter-instrument-with-probe`: an `interpreter.probe` after every tensor an op computes.

StableHLO's reference-interpreter pass, which the wheels' bindings do not register, with the
same spelling, option and probe ids: `probe<N>`, or with `useDebugInfo=true` the op's name
location (`loc("name")`, cut at its first '@') as `name.<N>`, N counting every probe of the
module in post-order. Constants and tensors the interpreter cannot hold (strings, tokens,
tuples) are left alone; `shlo-translate --interpret --probe-output-dir DIR` then writes each
probed value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass

# A name location prints as loc("name") or loc("name"(child)); a file location as
# loc("file":line:col), which the lookahead tells apart.
_NAME_LOC = re.compile(r'^loc\("((?:[^"\\]|\\.)*)"(?=[)(])')


@dataclass(frozen=True)
class ProbeOptions:
    use_debug_info: bool = field(
        default=False,
        metadata={"flag": "useDebugInfo", "help": "name probes after the ops' name locations"},
    )


def _probe_name(location: Any, number: int, use_debug_info: bool) -> str:
    match = _NAME_LOC.match(str(location)) if use_debug_info else None
    return f"{match.group(1).split('@')[0]}.{number}" if match else f"probe{number}"


def _holds_numbers(kind: Any) -> bool:
    """A tensor of integers, floats or complex numbers: what `interpreter.probe` accepts."""
    if not isinstance(kind, ir.ShapedType) or isinstance(kind, ir.VectorType):
        return False
    element = ir.ShapedType(kind).element_type
    return isinstance(element, ir.IntegerType | ir.FloatType | ir.ComplexType)


@register_pass("interpreter-instrument-with-probe", options=ProbeOptions)
def instrument_with_probe(module: Any, options: ProbeOptions) -> None:
    """Probe every tensor result of every non-constant op, for the interpreter to record."""
    number = 0
    for op in ops_in(module):  # post-order, as upstream numbers its probes
        if op.name == "stablehlo.constant":
            continue
        for result in op.results:
            if not _holds_numbers(result.type):
                continue
            number += 1
            name = _probe_name(op.location, number, options.use_debug_info)
            probe_id = ir.StringAttr.get(name, context=op.context)
            with ir.InsertionPoint.after(op):
                probe = ir.Operation.create(
                    "interpreter.probe",
                    results=[result.type],
                    operands=[result],
                    attributes={"probe_id": probe_id},
                    loc=op.location,
                )
            result.replace_all_uses_except(probe.result, probe)
