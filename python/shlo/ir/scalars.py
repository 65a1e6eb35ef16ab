"""torch-mlir's scalar arithmetic as StableHLO on 0-d tensors (`shlo-scalars-to-stablehlo`, and
the frontend on each import).

A Python number the model takes (`shlo.frontend.numbers`) reaches torch-mlir as `.item()` of a
0-d tensor, which it lowers to `tensor.extract`, scalar `arith` ops and `tensor.from_elements`;
constants may come out as `arith.constant` of a tensor type.  Neither the StableHLO interpreter
nor portable artifacts accept those dialects, so each becomes the StableHLO op computing the
same value on 0-d tensors (a float comparison with Python's answer on NaN).  A chain that
holds an op with no StableHLO twin is left as it is.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import functions, ops_in, returned_values, set_results
from shlo.ir.stablehlo import ir

_CONVERSIONS = frozenset(
    f"arith.{name}"
    for name in ("extf", "truncf", "sitofp", "uitofp", "fptosi", "fptoui", "extsi", "trunci")
)
_BINARY = {
    "arith.addf": "stablehlo.add",
    "arith.addi": "stablehlo.add",
    "arith.subf": "stablehlo.subtract",
    "arith.subi": "stablehlo.subtract",
    "arith.mulf": "stablehlo.multiply",
    "arith.muli": "stablehlo.multiply",
    "arith.divf": "stablehlo.divide",
    "arith.maximumf": "stablehlo.maximum",
    "arith.minimumf": "stablehlo.minimum",
}
_UNARY = {"arith.negf": "stablehlo.negate"}
# arith's predicate numbers -> (direction, compare type)
_CMPI = dict(enumerate(
    [("EQ", "SIGNED"), ("NE", "SIGNED"), ("LT", "SIGNED"), ("LE", "SIGNED"), ("GT", "SIGNED"),
     ("GE", "SIGNED"), ("LT", "UNSIGNED"), ("LE", "UNSIGNED"), ("GT", "UNSIGNED"),
     ("GE", "UNSIGNED")]
))  # fmt: skip
# oeq ogt oge olt ole, ugt uge ult ule, une: torch-mlir gives Python's `>` as `ugt`, but Python
# (and so eager) answers False on NaN, as StableHLO's GT does
_CMPF = {
    1: "EQ",
    2: "GT",
    3: "GE",
    4: "LT",
    5: "LE",
    9: "GT",
    10: "GE",
    11: "LT",
    12: "LE",
    13: "NE",
}


def _scalar_tensor(scalar_type: Any) -> Any:
    return ir.RankedTensorType.get([], scalar_type)


def _create(
    name: str, result: Any, operands: list[Any], attributes: dict[str, Any] | None = None
) -> Any:
    return ir.Operation.create(name, results=[result], operands=operands, attributes=attributes)


def _as_tensor(op: Any, tensors: dict[Any, Any]) -> Any | None:
    """The StableHLO op giving `op`'s scalar result as a 0-d tensor, or None if there is none.
    `tensors` maps each scalar already rewritten to its 0-d tensor."""
    name = op.name
    result = op.results[0] if len(op.results) == 1 else None
    if result is None:
        return None
    if name == "arith.constant" and not isinstance(result.type, ir.RankedTensorType):
        value = ir.DenseElementsAttr.get_splat(_scalar_tensor(result.type), op.attributes["value"])
        return _create("stablehlo.constant", value.type, [], {"value": value})
    if name in ("arith.cmpi", "arith.cmpf"):
        return _compare(op, tensors)
    target = "stablehlo.convert" if name in _CONVERSIONS else _BINARY.get(name, _UNARY.get(name))
    operands = [tensors.get(operand) for operand in op.operands]
    if target is None or any(operand is None for operand in operands):
        return None
    return _create(target, _scalar_tensor(result.type), operands)


def _compare(op: Any, tensors: dict[Any, Any]) -> Any | None:
    predicate = ir.IntegerAttr(op.attributes["predicate"]).value
    if op.name == "arith.cmpi":
        direction, kind = _CMPI.get(predicate, (None, None))
    else:
        direction, kind = _CMPF.get(predicate), "FLOAT"
    operands = [tensors.get(operand) for operand in op.operands]
    if direction is None or any(operand is None for operand in operands):
        return None
    attributes = {
        "comparison_direction": ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>"),
        "compare_type": ir.Attribute.parse(f"#stablehlo<comparison_type {kind}>"),
    }
    result = _scalar_tensor(ir.IntegerType.get_signless(1))
    return _create("stablehlo.compare", result, operands, attributes)


def _rewrite_block(block: Any) -> None:
    tensors: dict[Any, Any] = {}
    dead: list[Any] = []  # the rewritten ops, then what they became, erased when unused
    for op in list(block.operations):
        op = op.operation
        if op.name == "tensor.extract" and len(op.operands) == 1:
            source = op.operands[0]
            if isinstance(source.type, ir.RankedTensorType) and source.type.rank == 0:
                tensors[op.results[0]] = source
                dead.append(op)
            continue
        if op.name == "tensor.from_elements" and len(op.operands) == 1:
            scalar = tensors.get(op.operands[0])
            if scalar is not None:
                if scalar.type != op.results[0].type:  # tensor<1xT> from a 0-d tensor
                    with ir.InsertionPoint(op), op.location:
                        scalar = _create("stablehlo.reshape", op.results[0].type, [scalar])
                        scalar = scalar.results[0]
                op.results[0].replace_all_uses_with(scalar)
                dead.append(op)
            continue
        with ir.InsertionPoint(op), op.location:
            rewritten = _as_tensor(op, tensors)
        if rewritten is not None:
            tensors[op.results[0]] = rewritten.results[0]
            dead.append(op)
    dead += [value.owner for value in tensors.values() if isinstance(value.owner, ir.Operation)]
    for op in reversed(dead):
        if all(not list(result.uses) for result in op.results):
            op.erase()


def _tensor_constants(module: Any) -> None:
    """`arith.constant` of a tensor type as `stablehlo.constant`."""
    for op in ops_in(module, "arith.constant"):
        result = op.results[0]
        if isinstance(result.type, ir.RankedTensorType):
            with ir.InsertionPoint(op), op.location:
                constant = _create("stablehlo.constant", result.type, [], {
                    "value": op.attributes["value"]
                })  # fmt: skip
            result.replace_all_uses_with(constant.results[0])
            op.erase()


def rewrite_scalars(module: Any) -> None:
    """Rewrite `module`'s scalar tensor/arith ops and tensor-typed arith constants as
    StableHLO, in place (the frontend calls it on each import)."""
    with module.context:
        _tensor_constants(module)
        for function in ops_in(module, "func.func"):
            for block in function.regions[0].blocks:
                _rewrite_block(block)


def number_results_as_tensors(module: Any, name: str) -> tuple[str | None, ...]:
    """Make `@name` return each of its scalar results (a Python number the model returns:
    `i1`, an integer or a float) as a 0-d tensor, which IREE hands back as a buffer like the
    others; returns, per result, "bool", "int" or "float" for those, None for tensors.
    Call it before `rewrite_scalars`, which then computes them in StableHLO."""
    with module.context, ir.Location.unknown():
        function = functions(module)[name]
        values: list[Any] = []
        kinds: list[str | None] = []
        for value in returned_values(function):
            kind = value.type
            if isinstance(kind, ir.IntegerType | ir.FloatType):
                with ir.InsertionPoint.at_block_terminator(function.regions[0].blocks[0]):
                    packed = ir.Operation.create(
                        "tensor.from_elements",
                        results=[_scalar_tensor(kind)],
                        operands=[value],
                    )
                values.append(packed.results[0])
                is_int = isinstance(kind, ir.IntegerType)
                kinds.append(("bool" if kind.width == 1 else "int") if is_int else "float")
            else:
                values.append(value)
                kinds.append(None)
        if any(kinds):
            set_results(function, values)
    return tuple(kinds)
