"""What IREE 3.13 cannot compute, as facts about IR: read by the passes that work around it
and by the backend, which warns about or refuses what no pass fixed.

- f64 math functions: SPIR-V's GLSL instructions exist for 16- and 32-bit floats only, and
  llvm-cpu turns some f64 functions into libm calls its embedded linker lacks.
- Long rows: Vulkan combines at most `LIMIT` elements into one result, silently.
"""

from __future__ import annotations

import math
from typing import Any

from shlo.ir.edit import ops_in
from shlo.ir.measures import contraction_depth
from shlo.ir.stablehlo import ir

# Elementwise ops whose SPIR-V (GLSL.std.450) lowering exists only for 16/32-bit floats.
F32_ONLY = (
    "stablehlo.atan2",
    "stablehlo.cbrt",
    "stablehlo.cosine",
    "stablehlo.exponential",
    "stablehlo.exponential_minus_one",
    "stablehlo.log",
    "stablehlo.log_plus_one",
    "stablehlo.logistic",
    "stablehlo.power",
    "stablehlo.sine",
    "stablehlo.tan",
    "stablehlo.tanh",
)
# f64 functions IREE's llvm-cpu target turns into libm calls its embedded linker lacks.
LIBM_ONLY = (
    "stablehlo.atan2",
    "stablehlo.cosine",
    "stablehlo.sine",
    "stablehlo.tan",
    "stablehlo.tanh",
)
# The most elements IREE's Vulkan target combines into one result of a reduction or matmul.
LIMIT = 65535


def f64_math(module: Any, names: tuple[str, ...] = F32_ONLY) -> list[Any]:
    """The ops `shlo-f64-math-in-f32` would compute in f32: ops named in `names` with f64
    results."""
    return [
        op
        for op in ops_in(module)
        if op.name in names and str(ir.ShapedType(op.results[0].type).element_type) == "f64"
    ]


def long_rows(module: Any) -> list[tuple[Any, int]]:
    """The reductions, windowed reductions (cumulative sums), matmuls and convolutions of
    static shape in `module` that still combine more than `LIMIT` elements into one result,
    with that count: those `shlo-split-long-reductions` does not split, which IREE's Vulkan
    target computes wrong."""
    found = []
    for op in ops_in(module):
        if not all(ir.RankedTensorType(v.type).has_static_shape for v in op.operands[:2]):
            continue  # a dynamic length is not known here
        if op.name == "stablehlo.reduce":
            shape = ir.RankedTensorType(op.operands[0].type).shape
            dims = ir.DenseI64ArrayAttr(op.attributes["dimensions"])
            length = math.prod(shape[d] for d in dims)
        elif op.name == "stablehlo.reduce_window":
            length = math.prod(ir.DenseI64ArrayAttr(op.attributes["window_dimensions"]))
        elif op.name in ("stablehlo.convolution", "stablehlo.dot_general", "stablehlo.dot"):
            length = contraction_depth(op)
        else:
            continue
        if length > LIMIT:
            found.append((op, length))
    return found
