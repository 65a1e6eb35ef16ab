"""`shlo-f64-math-in-f32`: f64 math functions computed in f32, for targets that have none in f64.

SPIR-V's GLSL instructions define exp, log, tanh, sin, pow and the like for 16- and 32-bit
floats only: iree-compile fails on any of them in f64 for Vulkan ("'spirv.GL.Exp' op operand #0
must be 16/32-bit float"), even where the device has f64 arithmetic.  IREE's llvm-cpu target
has its own gap: f64 sine, cosine, tan, tanh and atan2 become calls into a libm its embedded
linker does not have ("failed to link executable").  This pass converts the operands of each
such op (all of `F32_ONLY`, or those the `ops` option names, e.g. `LIBM_ONLY`) to f32, computes
it there and converts the result back, so the rest of the program (arithmetic, reductions,
matmuls) keeps f64.  The results of those functions carry f32's precision (a relative error
near 1e-7); drivers warn when they apply it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.ir.iree_gaps import F32_ONLY, f64_math
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import register_pass


@dataclass(frozen=True)
class F64MathOptions:
    ops: tuple[str, ...] = field(
        default=F32_ONLY, metadata={"help": "the op names to compute in f32 (default: SPIR-V's)"}
    )


def _with_element(value_type: Any, element: Any) -> Any:
    return ir.RankedTensorType.get(ir.RankedTensorType(value_type).shape, element)


def _convert(value: Any, element: Any) -> Any:
    return ir.Operation.create(
        "stablehlo.convert", results=[_with_element(value.type, element)], operands=[value]
    ).results[0]


@register_pass("shlo-f64-math-in-f32", options=F64MathOptions)
def f64_math_in_f32(module: Any, options: F64MathOptions) -> None:
    """Compute f64 exp, log, tanh, sin, pow and the like in f32, converting around them."""
    with module.context:
        f32, f64 = ir.F32Type.get(), ir.F64Type.get()
        for op in f64_math(module, options.ops):
            with ir.InsertionPoint(op), op.location:
                narrow = ir.Operation.create(
                    op.name,
                    results=[_with_element(op.results[0].type, f32)],
                    operands=[_convert(operand, f32) for operand in op.operands],
                    attributes={name: op.attributes[name] for name in op.attributes},
                )
                wide = _convert(narrow.results[0], f64)
            op.results[0].replace_all_uses_with(wide)
            op.erase()
