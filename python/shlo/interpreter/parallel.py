"""`interpreter.run_parallel` evaluated without threads, so its collectives cannot time out.

Upstream's interpreter runs each process of the grid on a thread of an LLVM thread pool (one
thread per CPU) and every rendezvous waits at most 3 s of wall-clock time (ProcessGrid.cpp).
A grid with more processes than CPUs therefore always aborts with "rendezvous timed out", and
a smaller one does whenever the load delays a thread by 3 s.  shlo instead lowers each
run_parallel whose processes reach collectives only at the top level of their function into
straight-line code at the op's place: every process's body is copied (replica_id and
partition_id become constants), and the copies are interleaved as the processes would meet,
each collective becoming the StableHLO ops that compute what upstream's Ops.cpp computes
(`collectives`).  Groups given as mesh axes are first spelled out as the dense groups
upstream flattens them to.  A grid whose processes never wait for each other runs natively (so
`interpreter.print` there shows its own names); calls that lead to a collective are inlined
first; a grid with a collective inside a loop or a branch runs natively, as shlo does not
lower it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.interpreter import collectives as lower
from shlo.interpreter.collectives import ParallelError
from shlo.ir.edit import functions, ops_in
from shlo.ir.stablehlo import ir, passmanager

BLOCKING = {f"stablehlo.{n}" for n in lower.RENDEZVOUS} | {"stablehlo.send", "stablehlo.recv"}
_IDS = {"stablehlo.replica_id", "stablehlo.partition_id"}
_FEEDS = {"stablehlo.infeed", "stablehlo.outfeed"}
PROCESS_OPS = BLOCKING | _IDS | _FEEDS
# Upstream's own flattening of mesh axes into dense groups (flattenReplicaGroupMeshAxes, which
# its interpreter calls too), reached through the pass that writes them for older versions.
_FLATTEN_MESHES = "builtin.module(stablehlo-compatibility-expander{target=1.14.0})"
_INLINE = "builtin.module(inline)"


@dataclass
class _Process:
    """One process of the grid: its id, its copied ops in order, how far it has run."""

    pid: tuple[int, int]
    clone: Any
    ops: list[Any]
    at: int = 0
    returned: list[Any] = field(default_factory=list)

    @property
    def waiting(self) -> Any:
        return self.ops[self.at] if self.at < len(self.ops) else None


def _symbols(attribute: Any) -> list[str]:
    return [ir.FlatSymbolRefAttr(a).value for a in ir.ArrayAttr(attribute)]


def _reaches_process_ops(name: str, table: dict[str, Any], seen: set[str]) -> bool:
    """Whether function `name` (or one it calls) holds an op that needs a process."""
    if name in seen or name not in table:
        return False
    seen.add(name)
    for op in ops_in(table[name]):
        if op.name in PROCESS_OPS or op.name == "interpreter.run_parallel":
            return True
        if op.name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if _reaches_process_ops(callee, table, seen):
                return True
    return False


def lowerable(function: Any, table: dict[str, Any]) -> bool:
    """Whether a process function can run as straight-line code: its ops that need the grid
    are at its top level (ids may be anywhere), and no function it calls needs the grid."""
    if len(function.regions[0].blocks) != 1:
        return False
    top = {op for op in function.regions[0].blocks[0].operations}
    for op in ops_in(function):
        if op.name in BLOCKING | _FEEDS and op not in top:
            return False
        if op.name == "interpreter.run_parallel":
            return False
        if op.name.removeprefix("stablehlo.") in lower.RENDEZVOUS and not _groups_read(op):
            return False
        if op.name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if _reaches_process_ops(callee, table, set()):
                return False
    return True


def _groups_read(op: Any) -> bool:
    """Whether shlo reads the op's groups (dense ids; not a mesh's axes)."""
    try:
        lower.Grid(1, 1).groups(op)
    except (ValueError, TypeError):  # ParallelError is no reason: the run reports it
        return False
    return True


def lower_run_parallel(module: Any) -> None:
    """Replace every lowerable `interpreter.run_parallel` of `module` by straight-line code.

    Runs with the module's context current; raises ParallelError where the processes would
    wait for each other forever."""
    spell_out_mesh_groups(module)
    inline_calls_to_collectives(module)
    table = functions(module)
    for site in ops_in(module, "interpreter.run_parallel"):
        programs = [_symbols(row) for row in ir.ArrayAttr(site.attributes["programs"])]
        names = {n for row in programs for n in row}
        if not programs or not all(n in table and lowerable(table[n], table) for n in names):
            continue
        if not any(op.name in BLOCKING for n in names for op in ops_in(table[n])):
            continue  # nothing to wait for: the native threads cannot time out
        with ir.InsertionPoint(site), site.location:
            _lower(site, programs, table)


def inline_calls_to_collectives(module: Any) -> None:
    """Inline the module's calls when a process reaches a collective through one, so that the
    collective lies in the process's own body (MLIR's inliner: the same ops, in call order)."""
    table = functions(module)
    processes = {
        name
        for site in ops_in(module, "interpreter.run_parallel")
        for row in ir.ArrayAttr(site.attributes["programs"])
        for name in _symbols(row)
    }
    calls = [
        ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        for name in processes & table.keys()
        for op in ops_in(table[name], "func.call")
    ]
    if any(_reaches_process_ops(callee, table, set()) for callee in calls):
        passmanager.PassManager.parse(_INLINE).run(module.operation)


def spell_out_mesh_groups(module: Any) -> None:
    """Give each collective whose `replica_groups` are mesh axes the dense groups upstream
    flattens them to; axes upstream cannot flatten stay, and the native run reports them."""
    grouped = [op for op in ops_in(module) if "replica_groups" in op.attributes]
    if all(isinstance(op.attributes["replica_groups"], ir.DenseElementsAttr) for op in grouped):
        return
    clone = module.operation.clone()
    try:
        passmanager.PassManager.parse(_FLATTEN_MESHES).run(clone)
        flattened = [op for op in ops_in(clone) if "replica_groups" in op.attributes]
        for op, spelled in zip(grouped, flattened, strict=True):
            groups = spelled.attributes["replica_groups"]
            if isinstance(groups, ir.DenseElementsAttr):
                op.attributes["replica_groups"] = groups
    except ir.MLIRError:
        pass  # left to the native run, which fails as upstream's does
    finally:
        clone.erase()


def _processes(site: Any, programs: list[list[str]], table: dict[str, Any]) -> list[_Process]:
    """A copy of each process's function, its arguments replaced by its share of the inputs
    and its ids by constants."""
    inputs = list(site.operands)
    processes = []
    for replica, row in enumerate(programs):
        for partition, name in enumerate(row):
            clone = table[name].operation.clone()
            block = clone.regions[0].blocks[0]
            count = len(block.arguments)
            for argument, value in zip(block.arguments, inputs[:count], strict=True):
                argument.replace_all_uses_with(value)
            inputs = inputs[count:]
            _fix_ids(clone, replica, partition)
            ops = list(block.operations)
            processes.append(_Process((replica, partition), clone, ops[:-1]))
    return processes


def _lower(site: Any, programs: list[list[str]], table: dict[str, Any]) -> None:
    processes = _processes(site, programs, table)
    feed = _symbols(site.attributes["infeed"]) if "infeed" in site.attributes else []
    grid = lower.Grid(len(programs), len(programs[0]))
    while True:
        for process in processes:
            _advance(process, site, feed, table)
        if all(p.waiting is None for p in processes):
            break
        if not _meet(processes, grid):
            waiting = [p for p in processes if p.waiting is not None]
            raise ParallelError(_deadlock(waiting), waiting[0].waiting.location)
    results = []
    for process in processes:
        block = process.clone.regions[0].blocks[0]
        results += list(block.operations[len(block.operations) - 1].operands)
    for old, new in zip(site.results, results, strict=True):
        old.replace_all_uses_with(new)
    for process in processes:
        process.clone.erase()
    site.erase()


def _fix_ids(clone: Any, replica: int, partition: int) -> None:
    for op in ops_in(clone):
        if op.name in _IDS:
            value = replica if op.name == "stablehlo.replica_id" else partition
            with ir.InsertionPoint(op), op.location:
                constant = lower.constant(op.results[0].type, str(value))
            op.results[0].replace_all_uses_with(constant)
            op.erase()


def _advance(process: _Process, site: Any, feed: list[str], table: dict[str, Any]) -> None:
    """Run `process` up to its next rendezvous: its ops move before `site` in order."""
    while (op := process.waiting) is not None and op.name not in BLOCKING:
        process.at += 1
        if op.name == "stablehlo.infeed":
            if not feed:
                raise ParallelError("stablehlo.infeed: the infeed queue is empty", op.location)
            name = feed.pop(0)
            signature = ir.TypeAttr(table[name].attributes["function_type"]).value
            lower.replace(op, [*lower.call(name, signature), op.operands[0]])
        elif op.name == "stablehlo.outfeed":  # upstream keeps the values nowhere to be seen
            lower.replace(op, [op.operands[len(op.operands) - 1]])
        else:
            op.move_before(site)


def _meet(processes: list[_Process], grid: lower.Grid) -> bool:
    """Carry out one rendezvous whose processes have all arrived; False when none has."""
    by_id = {p.pid: p for p in processes}
    for process in processes:
        op = process.waiting
        if op is None:
            continue
        if op.name == "stablehlo.send":
            continue  # met from the recv's side
        if op.name == "stablehlo.recv":
            sender = next((p for p in processes if _sends_to(p.waiting, op)), None)
            if sender is None:
                continue
            lower.send_recv(sender.waiting, op)
            sender.at += 1
            process.at += 1
            return True
        try:
            members = grid.members(op, process.pid)
        except ParallelError as error:
            raise ParallelError(f"{op.name}: {error}", op.location) from None
        arrived = [by_id[m].waiting for m in members if m in by_id]
        if len(arrived) != len(members) or not all(
            o is not None and lower.same_rendezvous(o, op) for o in arrived
        ):
            continue
        lower.rendezvous(op.name, dict(zip(members, arrived, strict=True)), grid)
        for member in members:
            by_id[member].at += 1
        return True
    return False


def _sends_to(op: Any, recv: Any) -> bool:
    return (
        op is not None and op.name == "stablehlo.send" and lower.channel(op) == lower.channel(recv)
    )


def _deadlock(waiting: list[_Process]) -> str:
    stuck = ", ".join(f"({p.pid[0]}, {p.pid[1]}) at {p.waiting.name}" for p in waiting)
    return (
        f"interpreter.run_parallel: the processes wait for each other forever: {stuck} "
        "(upstream's interpreter aborts: rendezvous timed out)"
    )
