"""The processes of a run_parallel interleaved into one program, in the order they would meet.

Each process is a stream of ops.  A stream runs (its ops move to the place being written) up to
its next rendezvous: a collective, a send or recv, or a `while`, `if` or `case` that holds one.
Once every process a rendezvous needs waits at it, it is carried out: a collective becomes the
ops that compute its values (`rendezvous`), and control flow becomes one op that runs the
processes' regions in lock step (`lockstep`).  No process ever waits on a clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shlo.interpreter import lockstep
from shlo.interpreter import rendezvous as values
from shlo.interpreter.collectives import (
    BLOCKING,
    Grid,
    ParallelError,
    Pid,
    channel,
    same_rendezvous,
)
from shlo.interpreter.lockstep import CONTROL
from shlo.ir.edit import ops_in
from shlo.ir.stablehlo import ir


@dataclass
class Stream:
    """The ops one process still has to run at one level, and how far it has run."""

    pid: Pid
    ops: list[Any]
    at: int = 0

    @property
    def waiting(self) -> Any:
        return self.ops[self.at] if self.at < len(self.ops) else None


def holds_rendezvous(op: Any) -> bool:
    """Whether `op` is a rendezvous: a blocking op, or control flow around one."""
    if op.name in BLOCKING:
        return True
    return op.name in CONTROL and any(inner.name in BLOCKING for inner in ops_in(op))


@dataclass
class Scheduler:
    """Writes the interleaved program: the grid, and the infeed queue (the functions it
    names)."""

    grid: Grid
    feed: list[str]
    table: dict[str, Any]

    def run(self, streams: list[Stream], site: Any) -> None:
        """Run `streams` to their ends, writing their ops before `site`."""
        while True:
            for stream in streams:
                self._advance(stream, site)
            if all(s.waiting is None for s in streams):
                return
            if not self._meet(streams, site):
                waiting = [s for s in streams if s.waiting is not None]
                raise ParallelError(_deadlock(waiting), waiting[0].waiting.location)

    def run_processes(self, ops: dict[Pid, list[Any]], site: Any) -> None:
        """Run each process's `ops` (one region's, in lock step) before `site`."""
        self.run([Stream(pid, list(process_ops)) for pid, process_ops in ops.items()], site)

    def _advance(self, stream: Stream, site: Any) -> None:
        """Run `stream` up to its next rendezvous; a branch it is known to take is spliced in."""
        while (op := stream.waiting) is not None:
            if holds_rendezvous(op):
                if not lockstep.splice_known_branch(stream.ops, stream.at):
                    return
                continue
            stream.at += 1
            if op.name == "stablehlo.infeed":
                self._infeed(op, site)
            elif op.name == "stablehlo.outfeed":  # upstream keeps the values nowhere to be seen
                values.replace(op, [op.operands[len(op.operands) - 1]])
            else:
                op.move_before(site)

    def _infeed(self, op: Any, site: Any) -> None:
        """The infeed's values: a call of the next function in the queue, written at `site`."""
        if not self.feed:
            raise ParallelError("stablehlo.infeed: the infeed queue is empty", op.location)
        name = self.feed.pop(0)
        signature = ir.TypeAttr(self.table[name].attributes["function_type"]).value
        with ir.InsertionPoint(site), op.location:
            values.replace(op, [*values.call(name, signature), op.operands[0]])

    def _meet(self, streams: list[Stream], site: Any) -> bool:
        """Carry out one rendezvous whose processes have all arrived; False when none has."""
        by_id = {s.pid: s for s in streams}
        for stream in streams:
            op = stream.waiting
            if op is None or op.name == "stablehlo.send":  # a send is met from the recv's side
                continue
            if op.name == "stablehlo.recv":
                met = _send_for(op, streams)
            elif op.name in CONTROL:
                met = lockstep.partners(stream.pid, by_id, self.grid)
            else:
                met = _collective_members(op, stream.pid, by_id, self.grid)
            if met is None:
                continue
            with ir.InsertionPoint(site), op.location:
                self._carry_out(op, {pid: by_id[pid].waiting for pid in met})
            for pid in met:
                by_id[pid].at += 1
            return True
        return False

    def _carry_out(self, op: Any, arrived: dict[Pid, Any]) -> None:
        if op.name == "stablehlo.recv":
            sender, receiver = arrived.values()
            values.send_recv(sender, receiver)
        elif op.name in CONTROL:
            lockstep.merge(arrived, self)
        else:
            values.rendezvous(op.name, arrived, self.grid)


def _send_for(recv: Any, streams: list[Stream]) -> list[Pid] | None:
    """The sender waiting on the recv's channel, then the receiver; None while none waits."""
    for stream in streams:
        op = stream.waiting
        if op is not None and op.name == "stablehlo.send" and channel(op) == channel(recv):
            receiver = next(s.pid for s in streams if s.waiting is recv)
            return [stream.pid, receiver]
    return None


def _collective_members(
    op: Any, pid: Pid, by_id: dict[Pid, Stream], grid: Grid
) -> list[Pid] | None:
    """The group `pid` meets at collective `op`, in group order, once all are there."""
    try:
        members = grid.members(op, pid)
    except ParallelError as error:
        raise ParallelError(f"{op.name}: {error}", op.location) from None
    arrived = [by_id[m].waiting if m in by_id else None for m in members]
    if all(o is not None and same_rendezvous(o, op) for o in arrived):
        return members
    return None


def _deadlock(waiting: list[Stream]) -> str:
    stuck = ", ".join(f"({s.pid[0]}, {s.pid[1]}) at {s.waiting.name}" for s in waiting)
    if any(s.waiting.name in CONTROL for s in waiting):
        return (
            f"interpreter.run_parallel: the processes do not meet: {stuck} (shlo runs a "
            "while, if or case that holds a collective in lock step, so every process it "
            "meets must be at the same kind of op)"
        )
    return (
        f"interpreter.run_parallel: the processes wait for each other forever: {stuck} "
        "(upstream's interpreter aborts: rendezvous timed out)"
    )
