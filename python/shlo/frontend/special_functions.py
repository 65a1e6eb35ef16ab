"""ATen's special functions that torch-mlir cannot lower, as CHLO's or as ATen computes them.

torch-mlir imports `lgamma`, `digamma`, `special_i1e` and `nextafter` as unknown ops and has
no StableHLO lowering for `erfinv`; CHLO has each of them (`chlo-legalize-to-stablehlo` writes
them out in StableHLO).  Each such op of statically shaped float tensors is rewritten in the
imported torch IR, before torch-mlir's pipelines run (`shlo.frontend.backend_ir`), as the CHLO
op of its operands converted to the result's element type and broadcast to its shape.

Where CHLO's values differ from ATen's, ATen's are taken: `digamma` of +-0 is -+inf (CHLO's
NaN), and below the type's precision `lgamma` is -log|x| and `digamma` -1/x - γ (CHLO's
reflection takes a sine or tangent there that underflows, as IREE computes an f64 one in
f32).  `polygamma` of order 0 is `digamma` and of order 1 ATen's own trigamma series.
Higher orders, and the Hurwitz `zeta` they come from, are left refused: CHLO's zeta is wrong
for a negative q (zeta(2, -8.5) came out 6.79, not 9.76) and ATen's loops as long as q is
negative.  `hypot` is computed as C's, without the overflow of squaring.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from shlo.frontend.backend_ir import (
    broadcast,
    compare,
    constant,
    convert,
    rewrite_ops,
    shape_and_element,
    tensor_type,
    to_builtin,
)
from shlo.frontend.reentry import Reentry
from shlo.ir.edit import create
from shlo.ir.stablehlo import ir

aten = torch.ops.aten
_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})


def _plain(name: str) -> Callable[[list[Any], list[int], str], Any]:
    """The CHLO op `name` of the operands as they are."""

    def build(operands: list[Any], shape: list[int], element: str) -> Any:
        return create(name, tensor_type(shape, element), operands)

    return build


_DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64}


def _lgamma(operands: list[Any], shape: list[int], element: str) -> Any:
    """CHLO's lgamma, and -log|x| where |x| is below the type's precision: CHLO's reflection
    there takes the log of a sine that underflows (IREE computes an f64 sine in f32)."""
    (x,) = operands
    kind = tensor_type(shape, element)
    magnitude = create("stablehlo.abs", kind, [x])
    epsilon = constant(shape, element, torch.finfo(_DTYPES[element]).eps)
    tiny = compare(tensor_type(shape, "i1"), magnitude, epsilon, "LT")
    near_pole = create("stablehlo.negate", kind, [create("stablehlo.log", kind, [magnitude])])
    return create("stablehlo.select", kind, [tiny, near_pole, create("chlo.lgamma", kind, [x])])


# op name -> (builder, how many tensor operands it takes)
_PATTERNS: dict[str, tuple[Callable[[list[Any], list[int], str], Any], int]] = {
    "torch.aten.lgamma": (_lgamma, 1),
    "torch.aten.digamma": (_plain("chlo.digamma"), 1),
    "torch.aten.erfinv": (_plain("chlo.erf_inv"), 1),
    "torch.aten.special_i1e": (_plain("chlo.bessel_i1e"), 1),
    "torch.aten.nextafter": (_plain("chlo.next_after"), 2),
}


def _name(op: Any) -> str:
    """The ATen op an imported op stands for: its own name, or an unknown op's `name`."""
    if op.name == "torch.operator":
        return str(ir.StringAttr(op.attributes["name"]).value)
    return str(op.name)


def lower_special_functions(module: Any) -> None:
    """Rewrite, in place, each special function of an imported torch IR `module` that
    torch-mlir cannot lower as CHLO, where its tensors are statically shaped floats."""

    def plan(op: Any) -> Callable[[], Any] | None:
        pattern = _PATTERNS.get(_name(op))
        if pattern is None or len(op.results) != 1:
            return None
        build, count = pattern
        result = shape_and_element(op.results[0])
        operands = list(op.operands)[:count]
        if result is None or result[1] not in _FLOATS or len(operands) != count:
            return None
        if any(shape_and_element(value) is None for value in operands):
            return None
        shape, element = result

        def rewrite() -> Any:
            values = [broadcast(convert(to_builtin(v), element), shape) for v in operands]
            return build(values, shape, element)

        return rewrite

    rewrite_ops(module, plan)


_EULER_GAMMA = 0.5772156649015329
# Entered while an op is called from its own decomposition, which must then keep it as it is.
_inside = Reentry("special_function")


def _kept(op: Any, *args: Any) -> Any:
    """`op(*args)` as it is, to be rewritten as CHLO (`lower_special_functions`)."""
    with _inside.entered():
        return op(*args)


def _floating(x: torch.Tensor) -> torch.Tensor:
    return x if x.is_floating_point() else x.to(torch.get_default_dtype())


def digamma(x: torch.Tensor) -> Any:
    """ATen's digamma: -1/x at +-0, a pole where CHLO's gives NaN, and -1/x - γ where |x| is
    below the type's precision (CHLO's reflection there divides by a tangent that IREE
    computes in f32 for f64, which underflows)."""
    if _inside.inside():
        return NotImplemented
    x = _floating(x)
    near_pole = -1 / x - _EULER_GAMMA
    return torch.where(
        x.abs() < torch.finfo(x.dtype).eps, near_pole, _kept(aten.digamma.default, x)
    )


def _trigamma(x: torch.Tensor) -> torch.Tensor:
    """ATen's `calc_trigamma`, in the input's type: the reflection below 1/2, six steps of
    the recurrence, then the asymptotic series."""
    reflected = x < 0.5
    # sin(pi x) is pi x to the type's precision below its epsilon (and IREE's f64 sine,
    # computed in f32, would underflow there)
    sine = torch.where(x.abs() < torch.finfo(x.dtype).eps, math.pi * x, torch.sin(math.pi * x))
    result = torch.where(reflected, -(math.pi * math.pi) / (sine * sine), torch.zeros_like(x))
    x = torch.where(reflected, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    ixx = 1 / (x * x)
    result = result + (1 + 1 / (2 * x) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / x
    return torch.where(reflected, -result, result)


def polygamma(n: int, x: torch.Tensor) -> Any:
    """ATen's polygamma of order 0 (digamma) and 1 (its trigamma); higher orders are kept,
    to be refused."""
    if n > 1:
        return NotImplemented
    x = _floating(x)
    return aten.digamma.default(x) if n == 0 else _trigamma(x)


def hypot(a: torch.Tensor, b: torch.Tensor) -> Any:
    """sqrt(a**2 + b**2) as C's hypot: infinite where either is (the other NaN included), and
    finite wherever the result is: the larger magnitude times sqrt(1 + r**2), r the ratio of
    the smaller to it."""
    dtype = torch.result_type(a, b)
    x, y = a.to(dtype).abs(), b.to(dtype).abs()
    larger, smaller = torch.maximum(x, y), torch.minimum(x, y)
    ratio = torch.where(larger == 0, larger, smaller / larger)
    result = larger * torch.sqrt(1 + ratio * ratio)
    return torch.where(torch.isinf(x) | torch.isinf(y), math.inf, result)


SPECIAL_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    aten.digamma.default: digamma,
    aten.hypot.default: hypot,
    aten.polygamma.default: polygamma,
}
