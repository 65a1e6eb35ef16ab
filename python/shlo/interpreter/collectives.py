"""Who meets whom at a collective, as upstream's reference forms its process groups.

Follows stablehlo/reference/Ops.cpp and ProcessGrid.cpp at 7b1b157: which processes form a
group (cross-replica, cross-partition, both, or flattened ids, by the channel handle and
`use_global_device_ids`), and which processes may stand outside every group (they go on alone
at collective_broadcast, collective_permute and collective_reduce; elsewhere it is an error).
`rendezvous` computes the values once they have met.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from shlo.errors import ShloError
from shlo.ir.stablehlo import ir

RENDEZVOUS = (
    "all_gather",
    "all_reduce",
    "all_to_all",
    "collective_broadcast",
    "collective_permute",
    "collective_reduce",
    "reduce_scatter",
)
BLOCKING = {f"stablehlo.{n}" for n in RENDEZVOUS} | {"stablehlo.send", "stablehlo.recv"}
# Collectives a process outside every group passes alone (it gets zeros).
ALONE_OUTSIDE = {"stablehlo.collective_broadcast", "stablehlo.collective_reduce"}
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
        if op.name in ALONE_OUTSIDE:
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
