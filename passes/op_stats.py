"""`shlo-op-stats`: how many of each op, how many constant bytes and how many FLOPs in dots and
convolutions, per function.

Answers "what is in this module?" before choosing a pipeline or a consumer; like upstream
`print-op-stats` it reports on stderr and leaves the IR unchanged.  The FLOPs (a multiply and
an add per multiply-accumulate, static shapes only) give a model's floor at a known matmul rate.
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

from shlo.ir.measures import contraction_depth
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass

_CONSTANTS = ("stablehlo.constant", "arith.constant")
_FORMATS = ("text", "json")


@dataclass(frozen=True)
class OpStatsOptions:
    format: str = field(default="text", metadata={"help": "'text' or 'json'"})


def _constant_bytes(op: Any) -> int:
    """Bytes a constant holds: its static tensor's element count times the element width."""
    if op.name not in _CONSTANTS or len(op.results) != 1:
        return 0
    shaped = op.results[0].type
    if not isinstance(shaped, ir.ShapedType) or not shaped.has_static_shape:
        return 0
    count = 1
    for dim in shaped.shape:
        count *= dim
    return count * _element_bytes(shaped.element_type)


def _element_bytes(element: Any) -> int:
    """Storage bytes of one element (i1 takes a byte; complex is two of its parts)."""
    if isinstance(element, ir.ComplexType):
        return 2 * _element_bytes(element.element_type)
    return max(getattr(element, "width", 64), 8) // 8


def _matmul_flops(op: Any) -> int:
    """2 x the multiply-accumulates of a dot or convolution with static shapes; 0 otherwise."""
    if op.name not in ("stablehlo.dot_general", "stablehlo.dot", "stablehlo.convolution"):
        return 0
    lhs, rhs, result = (ir.ShapedType(v.type) for v in (*op.operands[:2], op.results[0]))
    if not (lhs.has_static_shape and rhs.has_static_shape and result.has_static_shape):
        return 0
    return cast(int, 2 * math.prod(result.shape) * contraction_depth(op))


def function_stats(function: Any) -> dict[str, Any]:
    ops: Counter[str] = Counter()
    constant_bytes = flops = 0

    def visit(op: Any) -> ir.WalkResult:
        nonlocal constant_bytes, flops
        if op != function:
            ops[op.name] += 1
            constant_bytes += _constant_bytes(op)
            flops += _matmul_flops(op)
        return ir.WalkResult.ADVANCE

    function.walk(visit)
    return {
        "ops": dict(sorted(ops.items())),
        "constant_bytes": constant_bytes,
        "matmul_flops": flops,
    }


def _render(stats: dict[str, dict[str, Any]], fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"functions": stats}, indent=2) + "\n"
    lines = []
    for name, entry in stats.items():
        total = sum(entry["ops"].values())
        lines.append(
            f"// shlo-op-stats @{name}: {total} ops, {entry['constant_bytes']} constant bytes, "
            f"{entry['matmul_flops']} FLOPs in dots and convolutions"
        )
        lines += [f"//   {op:<40} {count}" for op, count in entry["ops"].items()]
    return "\n".join(lines) + "\n"


@register_pass("shlo-op-stats", options=OpStatsOptions)
def op_stats(module: Any, options: OpStatsOptions) -> None:
    """Report each function's op histogram, constant bytes and dot/convolution FLOPs."""
    if options.format not in _FORMATS:
        raise PassFailure(f"format must be one of {', '.join(_FORMATS)}, not '{options.format}'")
    stats = {}
    for op in module.regions[0].blocks[0].operations:
        if "sym_name" in op.attributes and op.regions:
            stats[ir.StringAttr(op.attributes["sym_name"]).value] = function_stats(op)
    sys.stderr.write(_render(stats, options.format))
    sys.stderr.flush()
