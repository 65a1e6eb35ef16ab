"""Complex-number ops of the torch backend IR that torch-mlir cannot lower, as StableHLO.

torch-mlir's conversion to StableHLO has no pattern for `view_as_real`, `view_as_complex`,
`complex` or complex `add`/`sub`/`mul`/`div`, and lowers `abs` of a complex tensor on its real part
alone.  StableHLO has the ops that compute them (`real`, `imag`, `complex`, `abs` of a complex
tensor, complex arithmetic), so each such op of statically shaped tensors is rewritten here, in
the torch backend IR, before torch-mlir's conversion runs (`shlo.frontend.backend_ir`).
`aten.real`/`aten.imag` reach the IR as `view_as_real` and a `select`, and the norms of
complex tensors as norms of their `abs` (`shlo.frontend.lowerings`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from shlo.frontend.backend_ir import (
    broadcast,
    convert,
    reshape,
    rewrite_ops,
    shape_and_element,
    tensor_type,
    to_builtin,
)
from shlo.ir.edit import create
from shlo.ir.stablehlo import ir

_REAL_OF = {"complex<f32>": "f32", "complex<f64>": "f64"}


def _view_as_real(op: Any, shape: list[int], element: str) -> Any:
    x, parts = to_builtin(op.operands[0]), shape[:-1]
    halves = [
        reshape(create(f"stablehlo.{part}", tensor_type(parts, element), [x]), [*parts, 1])
        for part in ("real", "imag")
    ]
    dimension = {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(parts))}
    return create("stablehlo.concatenate", tensor_type(shape, element), halves, dimension)


def _view_as_complex(op: Any, shape: list[int], element: str) -> Any:
    x = to_builtin(op.operands[0])
    real = _REAL_OF[element]
    halves = []
    for index in (0, 1):
        attributes = {
            "start_indices": ir.DenseI64ArrayAttr.get([0] * len(shape) + [index]),
            "limit_indices": ir.DenseI64ArrayAttr.get([*shape, index + 1]),
            "strides": ir.DenseI64ArrayAttr.get([1] * (len(shape) + 1)),
        }
        half = create("stablehlo.slice", tensor_type([*shape, 1], real), [x], attributes)
        halves.append(reshape(half, shape))
    return create("stablehlo.complex", tensor_type(shape, element), halves)


def _complex(op: Any, shape: list[int], element: str) -> Any:
    real = _REAL_OF[element]
    parts = [broadcast(convert(to_builtin(v), real), shape) for v in op.operands[:2]]
    return create("stablehlo.complex", tensor_type(shape, element), parts)


def _arithmetic(target: str) -> Callable[[Any, list[int], str], Any]:
    def rewrite(op: Any, shape: list[int], element: str) -> Any:
        operands = [broadcast(convert(to_builtin(v), element), shape) for v in op.operands[:2]]
        return create(target, tensor_type(shape, element), operands)

    return rewrite


def _abs(op: Any, shape: list[int], element: str) -> Any:
    return create("stablehlo.abs", tensor_type(shape, element), [to_builtin(op.operands[0])])


_Rewrite = Callable[[Any, list[int], str], Any]
# op name -> (rewrite, how many tensor operands it takes, whether the complex side is its
# first operand (else its result)); `add`/`sub` only with an alpha of 1
_PATTERNS: dict[str, tuple[_Rewrite, int, bool]] = {
    "torch.aten.view_as_real": (_view_as_real, 1, True),
    "torch.aten.view_as_complex": (_view_as_complex, 1, False),
    "torch.aten.complex": (_complex, 2, False),
    "torch.aten.add.Tensor": (_arithmetic("stablehlo.add"), 2, False),
    "torch.aten.sub.Tensor": (_arithmetic("stablehlo.subtract"), 2, False),
    "torch.aten.mul.Tensor": (_arithmetic("stablehlo.multiply"), 2, False),
    "torch.aten.div.Tensor": (_arithmetic("stablehlo.divide"), 2, False),
    "torch.aten.abs": (_abs, 1, True),
}
_SCALED = frozenset({"torch.aten.add.Tensor", "torch.aten.sub.Tensor"})


def _static_result(op: Any) -> tuple[list[int], str] | None:
    """The shape and element type of `op`'s result when a pattern applies to `op`: all its
    tensors are statically shaped and its complex side is complex<f32> or complex<f64>."""
    _, count, complex_operand = _PATTERNS[op.name]
    result = shape_and_element(op.results[0])
    operands = [shape_and_element(value) for value in list(op.operands)[:count]]
    if result is None or None in operands:
        return None
    side = operands[0] if complex_operand else result
    if side is None or side[1] not in _REAL_OF:
        return None
    if op.name in _SCALED and not _is_one(op.operands[2]):
        return None  # `add(a, b, alpha=2)`: left to torch-mlir
    return result


def lower_complex_ops(module: Any) -> None:
    """Rewrite, in place, the complex-number ops of a torch backend IR `module` that torch-mlir
    cannot lower (or lowers wrongly) as StableHLO; ops with dynamic shapes are left as they are."""

    def plan(op: Any) -> Callable[[], Any] | None:
        if op.name not in _PATTERNS or len(op.results) != 1:
            return None
        result = _static_result(op)
        if result is None:
            return None
        return lambda: _PATTERNS[op.name][0](op, *result)

    rewrite_ops(module, plan)


def _is_one(value: Any) -> bool:
    """Whether `value` is a `torch.constant.int` or `torch.constant.float` of 1."""
    if isinstance(value.owner, ir.Block) or "value" not in value.owner.attributes:
        return False
    owner = value.owner.operation
    attribute = owner.attributes["value"]
    if owner.name == "torch.constant.int":
        return cast(bool, ir.IntegerAttr(attribute).value == 1)
    return cast(bool, owner.name == "torch.constant.float" and ir.FloatAttr(attribute).value == 1.0)
