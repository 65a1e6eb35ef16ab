"""`interpreter.run_parallel` evaluated without threads, so its collectives cannot time out.

Upstream's interpreter runs each process of the grid on a thread of an LLVM thread pool (one
thread per CPU) and every rendezvous waits at most 3 s of wall-clock time (ProcessGrid.cpp).
A grid with more processes than CPUs therefore always aborts with "rendezvous timed out", and
a smaller one does whenever the load delays a thread by 3 s.  shlo instead writes each
run_parallel whose processes wait for each other as one program at the op's place: every
process's body is copied (replica_id and partition_id become constants) and the copies are
interleaved as the processes would meet (`schedule`), each collective becoming the StableHLO
ops that compute what upstream's Ops.cpp computes (`rendezvous`), control flow around one run
by its processes in lock step (`lockstep`).  Groups given as mesh axes are first spelled out
as the dense groups upstream flattens them to, and calls that lead to a collective are
inlined.  A grid whose processes never wait for each other runs natively (so
`interpreter.print` there shows its own names); one shlo cannot interleave is an error.
"""

from __future__ import annotations

from typing import Any

from shlo.interpreter.collectives import BLOCKING, RENDEZVOUS, Grid, ParallelError
from shlo.interpreter.lockstep import CONTROL
from shlo.interpreter.rendezvous import constant
from shlo.interpreter.schedule import Scheduler, Stream
from shlo.ir.edit import functions, ops_in
from shlo.ir.stablehlo import ir, passmanager

_IDS = {"stablehlo.replica_id", "stablehlo.partition_id"}
_FEEDS = {"stablehlo.infeed", "stablehlo.outfeed"}
PROCESS_OPS = BLOCKING | _IDS | _FEEDS
_GROUPED = {f"stablehlo.{name}" for name in RENDEZVOUS}
# Upstream's own flattening of mesh axes into dense groups (flattenReplicaGroupMeshAxes, which
# its interpreter calls too), reached through the pass that writes them for older versions.
_FLATTEN_MESHES = "builtin.module(stablehlo-compatibility-expander{target=1.14.0})"
_INLINE = "builtin.module(inline)"


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


def not_lowerable(function: Any, table: dict[str, Any]) -> tuple[str, Any] | None:
    """Why a process function cannot be interleaved with the others, and the op that says so;
    None when it can: the ops that need the grid lie in its body or in while, if and case
    regions there (ids may be anywhere), and no call it makes leads to one."""
    if len(function.regions[0].blocks) != 1:
        return "a process function of several blocks", function
    for op in ops_in(function):
        if op.name in _FEEDS and op.operation.parent != function.operation:
            return f"{op.name} inside {op.operation.parent.name}", op
        if op.name in BLOCKING and (holder := _holder(op, function)) is not None:
            return f"{op.name} inside {holder.name}", op
        if op.name == "interpreter.run_parallel":
            return "interpreter.run_parallel inside a process", op
        if op.name == "func.call":
            callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
            if _reaches_process_ops(callee, table, set()):
                return f"a call of @{callee}, which needs the grid, left by the inliner", op
    return None


def _holder(op: Any, function: Any) -> Any:
    """The innermost op around `op` (below `function`) other than while, if and case."""
    parent = op.operation.parent
    while parent != function.operation:
        if parent.name not in CONTROL:
            return parent
        parent = parent.parent
    return None


def _groups_read(op: Any) -> bool:
    """Whether shlo reads the op's groups (dense ids; not a mesh's axes)."""
    try:
        Grid(1, 1).groups(op)
    except (ValueError, TypeError):  # ParallelError is no reason: the run reports it
        return False
    return True


def lower_run_parallel(module: Any) -> None:
    """Replace every `interpreter.run_parallel` of `module` whose processes wait for each other
    by one program that runs them in turn.

    Runs with the module's context current; raises ParallelError where the processes would
    wait for each other forever, or where shlo cannot interleave them."""
    spell_out_mesh_groups(module)
    inline_calls_to_collectives(module)
    table = functions(module)
    for site in ops_in(module, "interpreter.run_parallel"):
        programs = [_symbols(row) for row in ir.ArrayAttr(site.attributes["programs"])]
        names = sorted({n for row in programs for n in row})
        if not programs or not all(n in table for n in names):
            continue  # the native run reports it
        grid_ops = [op for n in names for op in ops_in(table[n])]
        if not any(op.name in BLOCKING for op in grid_ops):
            continue  # nothing to wait for: the native threads cannot time out
        if not all(_groups_read(op) for op in grid_ops if op.name in _GROUPED):
            continue  # groups upstream cannot read: the native run fails as upstream's does
        for name in names:
            if (problem := not_lowerable(table[name], table)) is not None:
                reason, op = problem
                raise ParallelError(
                    f"interpreter.run_parallel: shlo cannot run the processes in one thread with "
                    f"{reason} (collectives only in the body or in while, if and case there); "
                    "upstream's threads would wait for each other on a clock",
                    op.location,
                )
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


def _processes(site: Any, programs: list[list[str]], table: dict[str, Any]) -> list[Any]:
    """A copy of each process's function, its arguments replaced by its share of the inputs
    and its ids by constants."""
    inputs = list(site.operands)
    clones = []
    for replica, row in enumerate(programs):
        for partition, name in enumerate(row):
            clone = table[name].operation.clone()
            block = clone.regions[0].blocks[0]
            count = len(block.arguments)
            for argument, value in zip(block.arguments, inputs[:count], strict=True):
                argument.replace_all_uses_with(value)
            inputs = inputs[count:]
            _fix_ids(clone, replica, partition)
            clones.append(clone)
    return clones


def _lower(site: Any, programs: list[list[str]], table: dict[str, Any]) -> None:
    clones = _processes(site, programs, table)
    feed = _symbols(site.attributes["infeed"]) if "infeed" in site.attributes else []
    scheduler = Scheduler(Grid(len(programs), len(programs[0])), feed, table)
    pids = [(r, p) for r in range(len(programs)) for p in range(len(programs[0]))]
    bodies = [list(clone.regions[0].blocks[0].operations) for clone in clones]
    scheduler.run([Stream(pid, ops[:-1]) for pid, ops in zip(pids, bodies, strict=True)], site)
    results = []
    for clone in clones:
        block = clone.regions[0].blocks[0]
        results += list(block.operations[len(block.operations) - 1].operands)
    for old, new in zip(site.results, results, strict=True):
        old.replace_all_uses_with(new)
    for clone in clones:
        clone.erase()
    site.erase()


def _fix_ids(clone: Any, replica: int, partition: int) -> None:
    for op in ops_in(clone):
        if op.name in _IDS:
            value = replica if op.name == "stablehlo.replica_id" else partition
            with ir.InsertionPoint(op), op.location:
                replacement = constant(op.results[0].type, str(value))
            op.results[0].replace_all_uses_with(replacement)
            op.erase()
