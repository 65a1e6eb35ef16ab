"""Small queries and edits of StableHLO-world IR that passes and drivers share.

Walks collect first and return a list, so callers may rewrite or erase what they found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

from shlo.ir.stablehlo import ir

# Ops whose regions hold the program's own ops (not a scalar computation applied per element).
_PROGRAM_REGIONS = ("func.func", "stablehlo.while", "stablehlo.if", "stablehlo.case")


def ops_in(operation: Any, name: str | None = None) -> list[Any]:
    """Every op under `operation` (a module or an op, itself included) in MLIR's walk order;
    only those called `name` when it is given."""
    found: list[Any] = []

    def visit(op: Any) -> ir.WalkResult:
        if name is None or op.name == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    operation.operation.walk(visit)
    return found


def create(
    name: str, result: Any, operands: Iterable[Any], attributes: dict[str, Any] | None = None
) -> Any:
    """The result of a new one-result op `name` at the current insertion point and location."""
    return ir.Operation.create(
        name, results=[result], operands=list(operands), attributes=attributes
    ).results[0]


def dense_constant(op: Any) -> Any:
    """The elements of `op` where it is a `stablehlo.constant` holding them in the IR, else
    None (another op, or a constant whose bytes are a resource blob, as weights are)."""
    if op is None or op.name != "stablehlo.constant":
        return None
    value = op.attributes["value"]
    return value if isinstance(value, ir.DenseElementsAttr) else None


def barrier_operands(op: Any, chosen: Callable[[Any], bool]) -> None:
    """Put an `optimization_barrier` between `op` and each of its operands that `chosen`
    picks, so that IREE computes the operand in a dispatch of its own."""
    for index, value in enumerate(list(op.operands)):
        if chosen(value):
            op.operands[index] = create("stablehlo.optimization_barrier", value.type, [value])


def shaped_like(value: Any, shape: list[int]) -> Any:
    """A ranked tensor type of `shape` with the element type of `value`'s."""
    return ir.RankedTensorType.get(shape, ir.RankedTensorType(value.type).element_type)


def equal_part(value: Any, dim: int, index: int, parts: int) -> Any:
    """Part `index` of `parts` equal parts of `value` along `dim`: a `stablehlo.slice` at the
    current insertion point and location."""
    shape = list(ir.RankedTensorType(value.type).shape)
    size = shape[dim] // parts
    start = [0] * len(shape)
    start[dim] = index * size
    limit = list(shape)
    limit[dim] = start[dim] + size
    shape[dim] = size
    attributes = {
        "start_indices": ir.DenseI64ArrayAttr.get(start),
        "limit_indices": ir.DenseI64ArrayAttr.get(limit),
        "strides": ir.DenseI64ArrayAttr.get([1] * len(shape)),
    }
    return create("stablehlo.slice", shaped_like(value, shape), [value], attributes)


def leading(value: Any, shape: list[int]) -> Any:
    """The part of `value` of `shape` that starts at its first element: a `stablehlo.slice`
    at the current insertion point and location."""
    attributes = {
        "start_indices": ir.DenseI64ArrayAttr.get([0] * len(shape)),
        "limit_indices": ir.DenseI64ArrayAttr.get(shape),
        "strides": ir.DenseI64ArrayAttr.get([1] * len(shape)),
    }
    return create("stablehlo.slice", shaped_like(value, shape), [value], attributes)


def stable_sort_of(operands: list[Any], dimension: int) -> tuple[Any, Any]:
    """A stable `stablehlo.sort` of `operands` along `dimension` at the current insertion point
    and location, and its comparator block (scalar arguments a0, b0, a1, b1, ..., no ops yet)."""
    sort = ir.Operation.create(
        "stablehlo.sort",
        results=[operand.type for operand in operands],
        operands=operands,
        attributes={
            "dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension),
            "is_stable": ir.BoolAttr.get(True),
        },
        regions=1,
    )
    elements = [ir.RankedTensorType(operand.type).element_type for operand in operands]
    scalars = [ir.RankedTensorType.get([], element) for element in elements for _ in (0, 1)]
    location = ir.Location.current
    block = sort.regions[0].blocks.append(*scalars, arg_locs=[location] * len(scalars))
    return sort, block


def in_program(op: Any) -> bool:
    """Whether `op` is one of the program's own ops, not part of a computation that a reduce,
    sort or scatter applies to scalars."""
    return op.parent.name in _PROGRAM_REGIONS


def scatter_inputs(scatter: Any) -> int:
    """How many inputs a `stablehlo.scatter` has: its operands are its inputs, its indices
    (at this position) and as many updates."""
    return (len(scatter.operands) - 1) // 2


def producer(value: Any) -> Any:
    """The op that defines `value`; None for a block argument."""
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def transpose(value: Any, permutation: list[int]) -> Any:
    """`value` transposed at the current insertion point and location (dimension i of the
    result is dimension `permutation[i]` of `value`); `value` itself for the identity."""
    if permutation == sorted(permutation):
        return value
    shape = ir.RankedTensorType(value.type).shape
    result = shaped_like(value, [shape[d] for d in permutation])
    attributes = {"permutation": ir.DenseI64ArrayAttr.get(permutation)}
    return create("stablehlo.transpose", result, [value], attributes)


def combiner(reduce: Any) -> str | None:
    """The op a one-result reduction's body applies to its two arguments, when the body is
    that op and its return (None for any other body)."""
    block = reduce.regions[0].blocks[0]
    ops = list(block.operations)
    arguments = list(block.arguments)
    if len(ops) != 2 or len(arguments) != 2 or set(ops[0].operands) != set(arguments):
        return None
    return cast("str | None", ops[0].name)


def reduced(x: Any, init: Any, body: str, dims: list[int]) -> Any:
    """`x` reduced over `dims` by a new `stablehlo.reduce` whose body applies the op `body`
    to its two arguments, at the current insertion point and location."""
    shape = ir.RankedTensorType(x.type).shape
    kept = [n for d, n in enumerate(shape) if d not in dims]
    reduce = ir.Operation.create(
        "stablehlo.reduce",
        results=[shaped_like(x, kept)],
        operands=[x, init],
        attributes={"dimensions": ir.DenseI64ArrayAttr.get(dims)},
        regions=1,
    )
    block = reduce.regions[0].blocks.append(init.type, init.type)
    with ir.InsertionPoint(block):
        combined = create(body, init.type, list(block.arguments))
        ir.Operation.create("stablehlo.return", results=[], operands=[combined])
    return reduce.results[0]


def rewrite_each(module: Any, name: str | None, rewrite: Callable[[Any], None]) -> None:
    """Call `rewrite(op)` on each `name` op of `module` (each op, for None), with new ops going
    in before it and taking its location (the shape of most rewrite passes here)."""
    with module.context:
        for op in ops_in(module, name):
            with ir.InsertionPoint(op), op.location:
                rewrite(op)


def functions(module: Any) -> dict[str, Any]:
    """The top-level `func.func` ops of a module (an `ir.Module` or its operation), by name."""
    return {
        ir.StringAttr(op.attributes["sym_name"]).value: op
        for op in module.operation.regions[0].blocks[0].operations
        if op.operation.name == "func.func"
    }


def erase_arguments(function: Any, indices: Iterable[int]) -> None:
    """Erase arguments (already without uses) of `function` and update its type to match;
    the erased ones' attributes go with them (all of them, once arguments were added)."""
    entry = function.regions[0].blocks[0]
    erased = set(indices)
    kept = [i for i in range(len(entry.arguments)) if i not in erased]
    _keep_entries(function, "arg_attrs", kept, len(entry.arguments))
    for index in sorted(erased, reverse=True):
        entry.erase_argument(index)
    signature = ir.TypeAttr(function.attributes["function_type"]).value
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([a.type for a in entry.arguments], list(signature.results))
    )


def declare_function(name: str, signature: Any) -> Any:
    """A private `func.func` declaration of `signature` at the current insertion point."""
    return ir.Operation.create(
        "func.func",
        attributes={
            "sym_name": ir.StringAttr.get(name),
            "function_type": ir.TypeAttr.get(signature),
            "sym_visibility": ir.StringAttr.get("private"),
        },
        regions=1,
    )


def call_function(name: str, signature: Any, operands: list[Any]) -> Any:
    """A `func.call` of `@name` at the current insertion point."""
    return ir.Operation.create(
        "func.call",
        results=list(signature.results),
        operands=list(operands),
        attributes={"callee": ir.FlatSymbolRefAttr.get(name)},
    )


def returned_values(function: Any) -> list[Any]:
    """The values `function`'s terminator returns."""
    block = function.regions[0].blocks[0]
    return list(block.operations[len(block.operations) - 1].operands)


def set_results(function: Any, values: list[Any]) -> None:
    """Make `function` return `values` (its signature updated to match).  The results'
    attributes stay with results that keep their place (all of them, or the old results
    followed by new ones, which get none); otherwise they no longer fit and are dropped."""
    block = function.regions[0].blocks[0]
    terminator = block.operations[len(block.operations) - 1]
    old = list(terminator.operands)
    placed = len(old) == len(values) or old == values[: len(old)]
    kept = list(range(len(old))) if placed else []
    _keep_entries(function, "res_attrs", kept, len(old), added=len(values) - len(kept))
    with ir.InsertionPoint.at_block_terminator(block), terminator.location:
        ir.Operation.create("func.return", operands=values)
    terminator.operation.erase()
    signature = ir.TypeAttr(function.attributes["function_type"]).value
    function.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(list(signature.inputs), [v.type for v in values])
    )


def return_also(function: Any, values: list[Any]) -> None:
    """Make `function` return `values` after its own results."""
    set_results(function, [*returned_values(function), *values])


def _keep_entries(function: Any, name: str, kept: list[int], count: int, added: int = 0) -> None:
    """Keep the entries `kept` of `function`'s per-argument or per-result attribute `name`,
    followed by `added` empty ones, when it has one entry for each of `count`; else drop it
    (it describes another interface)."""
    if name not in function.attributes:
        return
    entries = list(ir.ArrayAttr(function.attributes[name]))
    if len(entries) != count or not kept:
        del function.attributes[name]
        return
    empty = [ir.DictAttr.get({})] * added
    function.attributes[name] = ir.ArrayAttr.get([entries[i] for i in kept] + empty)


def drop_interface_attributes(function: Any) -> None:
    """Drop `function`'s argument and result attributes (what its caller's interface meant)."""
    for name in ("arg_attrs", "res_attrs"):
        if name in function.attributes:
            del function.attributes[name]
