"""Control flow that holds a collective, run by all the processes it meets in lock step.

Upstream's processes each run their own `while`, `if` or `case` and meet at the collectives
inside.  Here the processes that meet there (the closure of the collectives' groups) have their
ops merged into one op whose regions `schedule` interleaves like the top level:

- `while`: one loop over every process's values; it runs while all conditions hold.  Processes
  that disagree on when to stop would wait for each other forever upstream (until "rendezvous
  timed out"); there the merged loop reaches a trap (`rendezvous.trap`), an error at run time.
- `if` / `case`: a branch a process is known to take (its predicate or index a constant, or a
  comparison of constants, as `replica_id` and `partition_id` become) is spliced into its
  ops; the others become one `case` with a branch per combination of the processes' choices,
  so processes in different branches still meet as upstream's do.  A combination in which
  they would wait for each other forever traps when it is taken, not before: the choices may
  never combine so.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Protocol

from shlo.interpreter import rendezvous as values
from shlo.interpreter.collectives import BLOCKING, Grid, ParallelError, Pid, channel
from shlo.interpreter.known_branch import known_branch
from shlo.ir.edit import create, ops_in
from shlo.ir.stablehlo import ir

CONTROL = {"stablehlo.while", "stablehlo.if", "stablehlo.case"}
_MOST_COMBINATIONS = 256  # branches of one merged case; more is refused, not built


class Runner(Protocol):
    def run_processes(self, ops: dict[Pid, list[Any]], site: Any) -> None: ...


def splice_known_branch(ops: list[Any], at: int) -> bool:
    """Put the branch that `ops[at]` (an `if` or `case`) is known to take in its place: its
    ops move before it, its results become the branch's.  False when no branch is known."""
    op = ops[at]
    choice = known_branch(op) if op.name in ("stablehlo.if", "stablehlo.case") else None
    if choice is None:
        return False
    body = _ops(op.regions[choice])
    for inner in body:
        inner.move_before(op)
    values.replace(op, _returned(op.regions[choice]))
    ops[at : at + 1] = body
    return True


def partners(pid: Pid, by_id: dict[Pid, Any], grid: Grid) -> list[Pid] | None:
    """The processes `pid`'s control flow meets (the closure of its collectives' groups), once
    each waits at the same kind of op; None while one does not."""
    kind = by_id[pid].waiting.name
    found, todo = {pid}, [pid]
    while todo:
        current = todo.pop()
        op = by_id[current].waiting if current in by_id else None
        if op is None or op.name != kind:
            return None
        for inner in ops_in(op):
            for other in _met_at(inner, current, by_id, grid):
                if other not in found:
                    found.add(other)
                    todo.append(other)
    return sorted(found)


def _met_at(op: Any, pid: Pid, by_id: dict[Pid, Any], grid: Grid) -> list[Pid]:
    """Who `pid` may meet at `op`: its group, or whoever sends or receives on its channel."""
    if op.name in ("stablehlo.send", "stablehlo.recv"):
        return [q for q, stream in by_id.items() if _uses_channel(stream.waiting, channel(op))]
    if op.name not in BLOCKING:
        return []
    try:
        return grid.members(op, pid)
    except ParallelError:  # reported where the merged regions meet
        return [pid]


def _uses_channel(op: Any, handle: int) -> bool:
    return op is not None and any(
        inner.name in ("stablehlo.send", "stablehlo.recv") and channel(inner) == handle
        for inner in ops_in(op)
    )


def merge(arrived: dict[Pid, Any], runner: Runner) -> None:
    """Replace the arrived control-flow ops (one per process, all of one kind, as `partners`
    gathers them) by one run in lock step, at the insertion point."""
    if next(iter(arrived.values())).name == "stablehlo.while":
        _merge_while(arrived, runner)
    else:
        _merge_branches(arrived, runner)


def _merge_while(arrived: dict[Pid, Any], runner: Runner) -> None:
    loops = list(arrived.values())
    types = [r.type for op in loops for r in op.results]
    operands = [v for op in loops for v in op.operands]
    merged = ir.Operation.create("stablehlo.while", results=types, operands=operands, regions=2)
    blocks = [ir.Block.create_at_start(merged.regions[i], types) for i in (0, 1)]
    for op, (start, end) in zip(loops, _spans(loops), strict=True):
        for region, block in zip(op.regions, blocks, strict=True):
            new = list(block.arguments)[start:end]
            for old, replacement in zip(region.blocks[0].arguments, new, strict=True):
                old.replace_all_uses_with(replacement)
    body = _terminate(blocks[1], [r for op in loops for r in _returned(op.regions[1])])
    runner.run_processes({pid: _ops(op.regions[1]) for pid, op in arrived.items()}, body)
    conditions = _terminate(blocks[0], [_returned(op.regions[0])[0] for op in loops])
    runner.run_processes({pid: _ops(op.regions[0]) for pid, op in arrived.items()}, conditions)
    with ir.InsertionPoint(conditions), loops[0].location:
        go_on = _all_hold(list(conditions.operands), tuple(arrived), loops[0].location)
        ir.Operation.create("stablehlo.return", operands=[go_on])
    conditions.erase()
    _replace_all(loops, list(merged.results))


def _all_hold(conditions: list[Any], pids: tuple[Pid, ...], at: Any) -> Any:
    """The conditions' conjunction, trapping when they differ."""
    every, some = conditions[0], conditions[0]
    for condition in conditions[1:]:
        every = create("stablehlo.and", every.type, [every, condition])
        some = create("stablehlo.or", some.type, [some, condition])
    if len(conditions) > 1:
        differ = create("stablehlo.xor", every.type, [every, some])
        report = ir.Operation.create("stablehlo.if", results=[], operands=[differ], regions=2)
        then, otherwise = (ir.Block.create_at_start(region, []) for region in report.regions)
        with ir.InsertionPoint(then):
            names = ", ".join(f"({p[0]}, {p[1]})" for p in pids)
            values.trap(
                f"interpreter.run_parallel: the processes {names} of a stablehlo.while that "
                "holds a collective disagree on when to stop (upstream's interpreter waits for "
                "the stopped ones: rendezvous timed out)",
                at,
            )
        _terminate(then, [])
        _terminate(otherwise, [])
    return every


def _merge_branches(arrived: dict[Pid, Any], runner: Runner) -> None:
    ops = list(arrived.values())
    counts = [len(op.regions) for op in ops]
    if math.prod(counts) > _MOST_COMBINATIONS:
        raise ParallelError(
            f"interpreter.run_parallel: {len(ops)} processes choose a branch of an op that "
            f"holds a collective at run time: {math.prod(counts)} combinations, more than the "
            f"{_MOST_COMBINATIONS} shlo writes out",
            ops[0].location,
        )
    types = [r.type for op in ops for r in op.results]
    index = _joint_index(ops, counts)
    merged = ir.Operation.create(
        "stablehlo.case", results=types, operands=[index], regions=math.prod(counts)
    )
    for number, choice in enumerate(itertools.product(*(range(c) for c in counts))):
        block = ir.Block.create_at_start(merged.regions[number], [])
        _write_branch(arrived, choice, block, runner)
    _replace_all(ops, list(merged.results))


def _write_branch(
    arrived: dict[Pid, Any], choice: tuple[int, ...], block: Any, runner: Runner
) -> None:
    """Write into `block` the processes' branches `choice` run in lock step; where they would
    wait for each other forever, a trap (the combination may never be taken)."""
    ops = list(arrived.values())
    copies = [op.clone() for op in ops]
    regions = [copy.regions[c] for copy, c in zip(copies, choice, strict=True)]
    returned = [v for region in regions for v in _returned(region)]
    site = _terminate(block, returned, ops[0].location)
    try:
        runner.run_processes(
            {pid: _ops(region) for pid, region in zip(arrived, regions, strict=True)}, site
        )
    except ParallelError as error:
        for op in reversed(list(block.operations)):  # users first: they may use the copies'
            op.erase()
        for copy in copies:
            copy.erase()
        with ir.InsertionPoint(block), ops[0].location:
            values.trap(str(error), error.location or ops[0].location)
            ir.Operation.create(
                "stablehlo.return",
                operands=[values.zeros(r.type) for op in ops for r in op.results],
            )
        return
    for copy in copies:
        copy.erase()


def _joint_index(ops: list[Any], counts: list[int]) -> Any:
    """The number of the combination of branches the processes take (the last one's choice
    varies fastest, as `itertools.product` counts)."""
    i32 = ir.RankedTensorType.get([], ir.IntegerType.get_signless(32))
    joint, stride = None, 1
    for op, count in reversed(list(zip(ops, counts, strict=True))):
        index = _branch_index(op, count, i32)
        if stride != 1:
            index = create("stablehlo.multiply", i32, [index, values.constant(i32, str(stride))])
        joint = index if joint is None else create("stablehlo.add", i32, [joint, index])
        stride *= count
    return joint


def _branch_index(op: Any, count: int, i32: Any) -> Any:
    """The branch `op` takes: `if`'s true branch is 0; `case` runs its last branch for an index
    out of range (caseOp)."""
    last = values.constant(i32, str(count - 1))
    if op.name == "stablehlo.if":
        return create("stablehlo.select", i32, [op.operands[0], values.constant(i32, "0"), last])
    index = op.operands[0]
    below = _compare(index, values.constant(i32, "0"), "LT")
    above = _compare(index, values.constant(i32, str(count)), "GE")
    outside = create("stablehlo.or", below.type, [below, above])
    return create("stablehlo.select", i32, [outside, last, index])


def _compare(lhs: Any, rhs: Any, direction: str) -> Any:
    attribute = ir.Attribute.parse(f"#stablehlo<comparison_direction {direction}>")
    pred = ir.RankedTensorType.get([], ir.IntegerType.get_signless(1))
    return create("stablehlo.compare", pred, [lhs, rhs], {"comparison_direction": attribute})


def _spans(ops: list[Any]) -> list[tuple[int, int]]:
    ends = list(itertools.accumulate(len(op.results) for op in ops))
    return [(end - len(op.results), end) for op, end in zip(ops, ends, strict=True)]


def _replace_all(ops: list[Any], results: list[Any]) -> None:
    for op, (start, end) in zip(ops, _spans(ops), strict=True):
        values.replace(op, results[start:end])


def _ops(region: Any) -> list[Any]:
    """A single-block region's ops but its terminator."""
    ops = list(region.blocks[0].operations)
    return ops[:-1]


def _returned(region: Any) -> list[Any]:
    ops = region.blocks[0].operations
    return list(ops[len(ops) - 1].operands)


def _terminate(block: Any, returned: list[Any], location: Any = None) -> Any:
    """A `stablehlo.return` of `returned` at the end of `block`."""
    with ir.InsertionPoint(block), location or ir.Location.current:
        return ir.Operation.create("stablehlo.return", operands=returned)
