"""Collectives as the StableHLO ops that compute them, once every process has arrived.

`schedule` interleaves the processes of `interpreter.run_parallel` into one program; here each
rendezvous becomes concatenates, slices, maps and selects over the values the processes
brought, following upstream's reference (stablehlo/reference/Ops.cpp at 7b1b157): values are
combined in group order for gathers and all_to_all and in process-id order for reductions, and
a process outside every group gets zeros where upstream lets it go on alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shlo.interpreter.collectives import Grid, Pid
from shlo.ir.diagnostics import line_column
from shlo.ir.edit import create, equal_part
from shlo.ir.stablehlo import ir


def constant(tensor_type: Any, element: str) -> Any:
    """A splat `stablehlo.constant` of `element` text at the insertion point."""
    return create(
        "stablehlo.constant",
        tensor_type,
        [],
        {"value": ir.Attribute.parse(f"dense<{element}> : {tensor_type}")},
    )


def zeros(tensor_type: Any) -> Any:
    element = ir.RankedTensorType(tensor_type).element_type
    if isinstance(element, ir.ComplexType):
        text = "(0.0,0.0)"
    elif isinstance(element, ir.IntegerType):
        text = "false" if ir.IntegerType(element).width == 1 else "0"
    else:
        text = "0.0"
    return constant(tensor_type, text)


TRAP = "shlo.trap"


def trap(message: str, location: Any) -> None:
    """An op that stops the run with `message` at `location` when it is reached: a custom call
    no interpreter knows, which aborts it anywhere (branches included) with the op's text, where
    `evaluate` finds "LINE:COLUMN: message" again."""
    line, column = line_column(location)
    text = f"{line}:{column}: {message}".replace('"', "'")
    ir.Operation.create(
        "stablehlo.custom_call",
        results=[],
        operands=[],
        attributes={
            "call_target_name": ir.StringAttr.get(TRAP),
            "backend_config": ir.StringAttr.get(text),
            "has_side_effect": ir.BoolAttr.get(True),
        },
    )


def replace(op: Any, values: list[Any]) -> None:
    for old, new in zip(op.results, values, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


def call(name: str, signature: Any) -> list[Any]:
    """The results of a new `func.call @name()` at the insertion point."""
    op = ir.Operation.create(
        "func.call",
        results=list(signature.results),
        attributes={"callee": ir.FlatSymbolRefAttr.get(name)},
    )
    return list(op.results)


def send_recv(send: Any, recv: Any) -> None:
    """A send met by a recv on its channel: the recv gets the sent values."""
    sent = list(send.operands)
    replace(recv, [*sent[:-1], recv.operands[0]])
    replace(send, [sent[-1]])


def _integer(op: Any, name: str) -> int:
    return int(ir.IntegerAttr(op.attributes[name]).value)


def _concatenate(values: list[Any], dimension: int, result: Any) -> Any:
    if len(values) == 1 and values[0].type == result:
        return values[0]
    attributes = {"dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dimension)}
    return create("stablehlo.concatenate", result, values, attributes)


def _combine(op: Any, lhs: Any, rhs: Any) -> Any:
    """`op`'s computation applied element by element (a `stablehlo.map` of a copy of it)."""
    rank = len(ir.RankedTensorType(lhs.type).shape)
    mapped = ir.Operation.create(
        "stablehlo.map",
        results=[lhs.type],
        operands=[lhs, rhs],
        attributes={"dimensions": ir.DenseI64ArrayAttr.get(list(range(rank)))},
        regions=1,
    )
    copy = op.clone()
    copy.regions[0].blocks[0].append_to(mapped.regions[0])
    copy.erase()
    return mapped.results[0]


def _reduced(arrived: dict[Pid, Any], index: int, by: Any) -> Any:
    """Operand `index` of every process combined in process-id order with `by`'s computation,
    as allReduceOp does."""
    order = sorted(arrived)
    value = arrived[order[0]].operands[index]
    for pid in order[1:]:
        value = _combine(by, value, arrived[pid].operands[index])
    return value


def _reductions(arrived: dict[Pid, Any], count: int) -> dict[Pid, list[Any]]:
    """Operands 0..count-1 reduced for each process with its own op's computation (each
    process evaluates its own region upstream); processes whose regions read alike share."""
    by_text: dict[str, list[Any]] = {}
    results = {}
    for pid, op in arrived.items():
        text = str(op.regions[0].blocks[0])
        if text not in by_text:
            by_text[text] = [_reduced(arrived, k, op) for k in range(count)]
        results[pid] = by_text[text]
    return results


Results = dict[Pid, list[Any]]


def _all_gather(arrived: dict[Pid, Any], grid: Grid) -> Results:
    group, first = list(arrived), next(iter(arrived.values()))
    dim = _integer(first, "all_gather_dim")
    gathered = [
        _concatenate([arrived[s].operands[k] for s in group], dim, result.type)
        for k, result in enumerate(first.results)
    ]
    return dict.fromkeys(group, gathered)


def _all_reduce(arrived: dict[Pid, Any], grid: Grid) -> Results:
    return _reductions(arrived, len(next(iter(arrived.values())).operands))


def _reduce_scatter(arrived: dict[Pid, Any], grid: Grid) -> Results:
    first = next(iter(arrived.values()))
    dim, count = _integer(first, "scatter_dimension"), len(grid.groups(first)[0])
    reduced = _reductions(arrived, 1)
    return {pid: [equal_part(reduced[pid][0], dim, i, count)] for i, pid in enumerate(arrived)}


def _all_to_all(arrived: dict[Pid, Any], grid: Grid) -> Results:
    group, first = list(arrived), next(iter(arrived.values()))
    split, concat = _integer(first, "split_dimension"), _integer(first, "concat_dimension")
    count = _integer(first, "split_count")
    return {
        pid: [
            _concatenate(
                [equal_part(arrived[s].operands[k], split, receiver, count) for s in group],
                concat,
                result.type,
            )
            for k, result in enumerate(arrived[pid].results)
        ]
        for receiver, pid in enumerate(group)
    }


def _in_a_group(arrived: dict[Pid, Any], grid: Grid) -> bool:
    """Whether the processes met as a group (not one process outside every group)."""
    first = next(iter(arrived.values()))
    return any(next(iter(arrived)) in g for g in grid.groups(first))


def _collective_broadcast(arrived: dict[Pid, Any], grid: Grid) -> Results:
    first = next(iter(arrived.values()))
    inside = _in_a_group(arrived, grid)
    return {
        pid: [first.operands[0] if inside else zeros(op.results[0].type)]
        for pid, op in arrived.items()
    }


def _collective_permute(arrived: dict[Pid, Any], grid: Grid) -> Results:
    """The last pair sending to a process wins, as upstream loops; nobody sending: zeros."""
    pairs = grid.groups(next(iter(arrived.values())))
    results = {}
    for pid, op in arrived.items():
        sources = [source for source, target in pairs if target == pid]
        results[pid] = [arrived[sources[-1]].operands[0] if sources else zeros(op.results[0].type)]
    return results


def _collective_reduce(arrived: dict[Pid, Any], grid: Grid) -> Results:
    """The reduction for the group's root (its first process, or the one each process's last
    operand names under `has_dynamic_root`), zeros for the others (collectiveReduceOp)."""
    if not _in_a_group(arrived, grid):
        return {pid: [zeros(r.type) for r in op.results] for pid, op in arrived.items()}
    reduced = _reductions(arrived, len(next(iter(arrived.values())).results))
    return {
        pid: [_root_part(op, rank, k, value) for k, value in enumerate(reduced[pid])]
        for rank, (pid, op) in enumerate(arrived.items())
    }


def _root_part(op: Any, rank: int, index: int, reduced: Any) -> Any:
    """`reduced` where the process of group rank `rank` is operand `index`'s root, else zeros."""
    zero = zeros(reduced.type)
    if "has_dynamic_root" not in op.attributes:
        return reduced if rank == 0 else zero
    roots = op.operands[len(op.operands) - 1]
    element = ir.RankedTensorType(roots.type).element_type
    scalar = ir.RankedTensorType.get([], element)
    root = create("stablehlo.reshape", scalar, [equal_part(roots, 0, index, _length(roots))])
    mine = constant(scalar, str(rank))
    direction = ir.Attribute.parse("#stablehlo<comparison_direction EQ>")
    pred = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    is_root = create("stablehlo.compare", pred, [root, mine], {"comparison_direction": direction})
    return create("stablehlo.select", reduced.type, [is_root, reduced, zero])


def _length(value: Any) -> int:
    return int(ir.RankedTensorType(value.type).shape[0])


_KINDS: dict[str, Callable[[dict[Pid, Any], Grid], Results]] = {
    "all_gather": _all_gather,
    "all_reduce": _all_reduce,
    "reduce_scatter": _reduce_scatter,
    "all_to_all": _all_to_all,
    "collective_broadcast": _collective_broadcast,
    "collective_permute": _collective_permute,
    "collective_reduce": _collective_reduce,
}


def rendezvous(name: str, arrived: dict[Pid, Any], grid: Grid) -> None:
    """Replace the collective `name` of every arrived process (in group order) by its value."""
    results = _KINDS[name.split(".", 1)[1]](arrived, grid)
    for pid, op in arrived.items():
        replace(op, results[pid])
