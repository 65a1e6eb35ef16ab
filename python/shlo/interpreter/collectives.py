"""Collectives as the StableHLO ops that compute them, once every process has arrived.

`parallel` lowers `interpreter.run_parallel` into straight-line code; here each rendezvous
becomes concatenates, slices and maps over the values the processes brought, following
upstream's reference (stablehlo/reference/Ops.cpp and ProcessGrid.cpp at 7b1b157): which
processes form a group (cross-replica, cross-partition, both, or flattened ids), in which order
values are combined (group order for gathers and all_to_all, process-id order for reductions),
and what a process outside every group gets (zeros for collective_broadcast and
collective_permute; an error for the others).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from shlo.errors import ShloError
from shlo.ir.edit import create, equal_part
from shlo.ir.stablehlo import ir

RENDEZVOUS = (
    "all_gather",
    "all_reduce",
    "all_to_all",
    "collective_broadcast",
    "collective_permute",
    "reduce_scatter",
)
Pid = tuple[int, int]  # (replica_id, partition_id)
_HANDLE = re.compile(r"handle\s*=\s*(-?\d+)")


class ParallelError(ShloError, ValueError):
    """The processes of a run_parallel cannot all finish: one is in no group of a collective
    that needs one, or they wait for each other forever (upstream aborts, or times out).
    `location` is the op's where known."""

    def __init__(self, message: str, location: Any = None) -> None:
        super().__init__(message)
        self.location = location


def channel(op: Any) -> int:
    """The op's channel id; 0 without a channel handle."""
    if "channel_handle" not in op.attributes:
        return 0
    match = _HANDLE.search(str(op.attributes["channel_handle"]))
    return int(match.group(1)) if match else 0


def id_lists(attribute: Any) -> list[list[int]]:
    """`dense<[[0, 1], [2, -1]]>` as [[0, 1], [2]] (-1 pads, as upstream reads it)."""
    dense = ir.DenseIntElementsAttr(attribute)
    shape = ir.ShapedType(dense.type).shape
    if dense.is_splat:
        array = np.full(shape, int(dense.get_splat_value().value))
    else:
        array = np.array(dense, dtype=np.int64).reshape(shape)
    return [[int(i) for i in row if i != -1] for row in array]


@dataclass(frozen=True)
class Grid:
    """The process grid's size, and the groups a collective forms on it (ProcessGrid.cpp)."""

    replicas: int
    partitions: int

    def _cross_replica(self, groups: list[list[int]]) -> list[list[Pid]]:
        return [[(r, p) for r in g] for g in groups for p in range(self.partitions)]

    def _cross_partition(self, groups: list[list[int]]) -> list[list[Pid]]:
        return [[(r, p) for p in g] for g in groups for r in range(self.replicas)]

    def _both(self, groups: list[list[int]]) -> list[list[Pid]]:
        return [[(r, p) for p in range(self.partitions) for r in g] for g in groups]

    def _flattened(self, groups: list[list[int]]) -> list[list[Pid]]:
        return [[divmod(i, self.partitions) for i in g] for g in groups]

    def groups(self, op: Any) -> list[list[Pid]]:
        """The process groups of `op` as upstream forms them."""
        kind, handle = op.name.split(".", 1)[1], channel(op)
        if kind == "collective_permute":
            pairs = id_lists(op.attributes["source_target_pairs"])
            return self._cross_replica(pairs) if handle <= 0 else self._cross_partition(pairs)
        ids = id_lists(op.attributes["replica_groups"])
        if kind in ("all_to_all", "collective_broadcast"):
            return self._cross_replica(ids) if handle <= 0 else self._cross_partition(ids)
        if "use_global_device_ids" in op.attributes:
            return self._flattened(ids) if handle > 0 else []
        return self._cross_replica(ids) if handle <= 0 else self._both(ids)

    def members(self, op: Any, pid: Pid) -> list[Pid]:
        """Who `pid` waits for at `op`, itself included, in group order; only itself when it
        is outside every group of a collective that allows that."""
        groups = self.groups(op)
        if op.name == "stablehlo.collective_permute":
            moving = [g for g in groups if g[0] != g[1]]
            involved = sorted({q for g in moving for q in g})
            return involved if pid in involved else [pid]
        group = next((g for g in groups if pid in g), None)
        if group is not None:
            return group
        if op.name == "stablehlo.collective_broadcast":
            return [pid]
        raise ParallelError(f"Failed to find process group with process_id: ({pid[0]}, {pid[1]})")


def same_rendezvous(a: Any, b: Any) -> bool:
    """Whether two processes waiting at `a` and `b` meet there."""
    keys = ("replica_groups", "source_target_pairs", "use_global_device_ids")
    return (
        a.name == b.name
        and channel(a) == channel(b)
        and all(str(a.attributes[k]) == str(b.attributes[k]) for k in keys if k in a.attributes)
        and all(k in a.attributes for k in keys if k in b.attributes)
    )


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


def _reduced(arrived: dict[Pid, Any], index: int) -> Any:
    """Operand `index` of every process combined in process-id order, as allReduceOp does."""
    order = sorted(arrived)
    value = arrived[order[0]].operands[index]
    for pid in order[1:]:
        value = _combine(arrived[pid], value, arrived[pid].operands[index])
    return value


def rendezvous(name: str, arrived: dict[Pid, Any], grid: Grid) -> None:
    """Replace the collective `name` of every arrived process (in group order) by its value."""
    group = list(arrived)
    first = arrived[group[0]]
    kind = name.split(".", 1)[1]
    results: dict[Pid, list[Any]] = {}
    if kind == "all_gather":
        dim = ir.IntegerAttr(first.attributes["all_gather_dim"]).value
        gathered = [
            _concatenate([arrived[s].operands[k] for s in group], dim, result.type)
            for k, result in enumerate(first.results)
        ]
        results = dict.fromkeys(group, gathered)
    elif kind == "all_reduce":
        reduced = [_reduced(arrived, k) for k in range(len(first.operands))]
        results = dict.fromkeys(group, reduced)
    elif kind == "reduce_scatter":
        dim = ir.IntegerAttr(first.attributes["scatter_dimension"]).value
        count = len(grid.groups(first)[0])
        reduced = _reduced(arrived, 0)
        results = {pid: [equal_part(reduced, dim, i, count)] for i, pid in enumerate(group)}
    elif kind == "all_to_all":
        split = ir.IntegerAttr(first.attributes["split_dimension"]).value
        concat = ir.IntegerAttr(first.attributes["concat_dimension"]).value
        count = ir.IntegerAttr(first.attributes["split_count"]).value
        for receiver, pid in enumerate(group):
            results[pid] = [
                _concatenate(
                    [equal_part(arrived[s].operands[k], split, receiver, count) for s in group],
                    concat,
                    result.type,
                )
                for k, result in enumerate(arrived[pid].results)
            ]
    elif kind == "collective_broadcast":
        inside = any(group[0] in g for g in grid.groups(first))
        for pid in group:
            op = arrived[pid]
            results[pid] = [first.operands[0] if inside else zeros(op.results[0].type)]
    else:  # collective_permute: the last pair sending to a process wins, as upstream loops
        pairs = [g for g in grid.groups(first)]
        for pid in group:
            op = arrived[pid]
            sources = [source for source, target in pairs if target == pid]
            value = arrived[sources[-1]].operands[0] if sources else zeros(op.results[0].type)
            results[pid] = [value]
    for pid in group:
        replace(arrived[pid], results[pid])
