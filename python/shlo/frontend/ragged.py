"""Results whose length the input values decide (`unique`, `unique_consecutive`, `nonzero`,
`masked_select`, `x[mask]`): computed at their largest length, with the length as a result of
its own.

StableHLO's shapes cannot hold a length read from the data.  Each op is written here at its
largest length (every element distinct, every element nonzero) and narrowed to the length it
found, `x.narrow(dim, 0, count.item())`, as ATen's CPU kernels compute it: values in sorted
order (NaN last, each NaN its own value), the first element of each run of equal ones, the
inverse indices and counts of each run.  Where such a narrowed tensor is a result of the
model, `ragged_results` makes @main return the whole tensor and, after the model's results,
the length; `cut` narrows it again after each call.  The length's checks stay, as run-time
assertions.  A narrowed tensor the model computes on further keeps a shape read from the
data, which the import refuses.

`unique` along a dimension of floating-point values: ATen orders rows by `<` element by
element, under which NaN is neither smaller nor larger, so the order of rows holding NaN is
what its sort happens to leave; of at most 16 rows that sort is libstdc++'s insertion sort,
followed step by step, and more rows are left alone (and so refused).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import torch

from shlo.frontend.lowerings import nonzero_static, slice_bounds

aten = torch.ops.aten
_INT64 = torch.int64
# What may use a length read from a tensor besides the narrowing: checks of its range (they
# stay, as run-time assertions) and arithmetic on numbers.
_CHECKS = {
    aten._assert_scalar.default,
    aten.sym_constrain_range_for_size.default,
    aten.sym_constrain_range.default,
}
_READS = {aten.item.default, aten._local_scalar_dense.default}
# libstdc++'s std::sort insertion-sorts ranges of at most this many elements
_INSERTION_SORTED = 16


def _narrowed(x: torch.Tensor, length: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """`x` narrowed along `dim` to the first `length` elements (a 0-d tensor)."""
    count = cast(int, length.item())
    torch._check(count >= 0)  # type: ignore[no-untyped-call]
    torch._check(count <= x.shape[dim])  # type: ignore[no-untyped-call]
    return x.narrow(dim, 0, count)


def _nonzero_padded(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The coordinates of every nonzero element, padded to one row per element, and how many
    there are."""
    return nonzero_static(x, size=max(x.numel(), 1)), (x != 0).sum()


def _runs(
    rows: torch.Tensor, inverse_order: torch.Tensor | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Runs of equal rows of `rows` (a row per index of dim 0; NaN equal to nothing): the start
    of each run (padded with the row count), each row's run, each run's length (padded with
    0) and the number of runs.  `inverse_order` puts each row's run back where the row came
    from (the sort's order), if the rows were sorted."""
    size = rows.shape[0]
    differs = rows[1:] != rows[:-1]
    if rows.dim() > 1:
        differs = differs.any(1)
    first = torch.cat([torch.ones(1, dtype=torch.bool), differs])
    group = torch.cumsum(first.to(_INT64), 0) - 1
    starts = nonzero_static(first, size=size, fill_value=size)[:, 0]
    counts = torch.cat([starts[1:], torch.full((1,), size, dtype=_INT64)]) - starts
    if inverse_order is not None:
        group = torch.empty_like(group).scatter(0, inverse_order, group)
    return starts, group, counts, first.sum()


def _sortable(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.uint8) if x.dtype == torch.bool else x


def _results(
    values: torch.Tensor,
    inverse: torch.Tensor,
    counts: torch.Tensor,
    length: torch.Tensor,
    wanted: tuple[bool, bool],
    dim: int = 0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """ATen's three results: the values and counts narrowed to `length`, and what is not
    `wanted` (inverse, counts) empty."""
    empty = torch.empty(0, dtype=_INT64)
    return (
        _narrowed(values, length, dim),
        inverse if wanted[0] else empty,
        _narrowed(counts, length) if wanted[1] else empty,
    )


def _unique_all(
    x: torch.Tensor, sort: bool, return_inverse: bool, return_counts: bool
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`unique` (sorted, as ATen's CPU kernel sorts whatever `sorted` says) or
    `unique_consecutive` of every element."""
    flat = x.reshape(-1)
    size = flat.numel()
    if size == 0:
        empty = torch.empty(0, dtype=_INT64)
        inverse = torch.empty(x.shape, dtype=_INT64) if return_inverse else empty
        return flat.clone(), inverse, empty
    order = None
    if sort:
        keys, order = torch.sort(_sortable(flat), stable=True)
        flat = keys.to(x.dtype)
    starts, group, counts, length = _runs(flat, order)
    values = flat[starts.clamp(max=size - 1)]
    return _results(values, group.reshape(x.shape), counts, length, (return_inverse, return_counts))


def unique2(
    x: torch.Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False
) -> Any:
    return _unique_all(x, True, return_inverse, return_counts)


def _rows(x: torch.Tensor, dim: int) -> torch.Tensor:
    """`x` as a row per index of `dim`."""
    return x.movedim(dim, 0).reshape(x.shape[dim], -1)


def _lexicographic(rows: torch.Tensor) -> torch.Tensor:
    """The stable lexicographic order of `rows` (a total order: integers and booleans), by
    stable sorts from the last column to the first."""
    order = torch.arange(rows.shape[0], dtype=_INT64)
    for column in reversed(range(rows.shape[1])):
        _, by = torch.sort(rows[order, column], stable=True)
        order = order[by]
    return order


def _before(row: torch.Tensor, others: torch.Tensor) -> torch.Tensor:
    """ATen's row comparator, `row` against each of `others`: `<` at the first column where
    `<` or `>` holds, false where none does (NaN is neither)."""
    less, greater = row < others, row > others
    decided = less | greater
    first = decided & (torch.cumsum(decided.to(_INT64), 1) == 1)
    return (less & first).any(1)


def _insertion_order(rows: torch.Tensor) -> torch.Tensor:
    """The order libstdc++'s `std::sort` leaves at most `_INSERTION_SORTED` rows in under
    ATen's comparator: its insertion sort, which moves a row smaller than the first to the
    front and otherwise past the run of rows it is smaller than (with NaN, that comparator is
    no order, so no other sort gives eager's rows)."""
    size = rows.shape[0]
    order = torch.arange(size, dtype=_INT64)
    slots = torch.arange(size, dtype=_INT64)
    for i in range(1, size):
        current = rows[order]
        smaller = _before(current[i], current[:i])
        trailing = torch.cumprod(smaller.flip(0).to(_INT64), 0).sum()
        place = torch.where(smaller[0], 0, i - trailing)
        moved = torch.where(slots > place, order[(slots - 1).clamp(min=0)], order)
        moved = torch.where(slots == place, order[i], moved)
        order = torch.where(slots > i, order, moved)
    return order


def _unique_rows(
    x: torch.Tensor, dim: int, sort: bool, return_inverse: bool, return_counts: bool
) -> Any:
    """`unique` or `unique_consecutive` of the slices along `dim`."""
    if x.dim() == 0:
        return NotImplemented
    dim = dim % x.dim()
    size = x.shape[dim]
    if size == 0:
        empty = torch.empty(0, dtype=_INT64)
        return x.clone(), empty, empty
    if x.numel() == 0:
        return NotImplemented  # eager raises: no slice to compare
    rows = _sortable(_rows(x, dim))
    order = None
    if sort:
        if x.dtype.is_complex or (x.dtype.is_floating_point and size > _INSERTION_SORTED):
            return NotImplemented  # the order of rows holding NaN is ATen's sort's accident
        order = _insertion_order(rows) if x.dtype.is_floating_point else _lexicographic(rows)
        rows = rows[order]
    starts, group, counts, length = _runs(rows, order)
    source = order[starts.clamp(max=size - 1)] if order is not None else starts.clamp(max=size - 1)
    values = x.index_select(dim, source)
    return _results(values, group, counts, length, (return_inverse, return_counts), dim)


def unique_dim(
    x: torch.Tensor,
    dim: int,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
) -> Any:
    return _unique_rows(x, dim, True, return_inverse, return_counts)


def unique_consecutive(
    x: torch.Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    if dim is None:
        return _unique_all(x, False, return_inverse, return_counts)
    return _unique_rows(x, dim, False, return_inverse, return_counts)


def nonzero(x: torch.Tensor) -> Any:
    """The coordinates of the nonzero elements in row-major order."""
    return _narrowed(*_nonzero_padded(x))


def nonzero_numpy(x: torch.Tensor) -> Any:
    """`nonzero(as_tuple=True)`: a tensor of coordinates per dim (of a 0-d tensor, as if it
    were 1-d)."""
    padded, length = _nonzero_padded(x.reshape(1) if x.dim() == 0 else x)
    return [_narrowed(padded[:, d], length) for d in range(padded.shape[1])]


def masked_rows(x: torch.Tensor, mask: torch.Tensor) -> Any:
    """`x[mask]` for a boolean mask of `x`'s leading dims: the rows where it holds, in
    row-major order (NotImplemented for another mask)."""
    if mask.dim() == 0 or tuple(mask.shape) != tuple(x.shape[: mask.dim()]):
        return NotImplemented
    chosen = mask.reshape(-1)
    size = chosen.numel()
    rows = x.reshape(size, *x.shape[mask.dim() :])
    if size == 0:
        return rows.clone()
    where = nonzero_static(chosen, size=size, fill_value=size - 1)[:, 0]
    return _narrowed(rows[where], chosen.sum())


def masked_select(x: torch.Tensor, mask: torch.Tensor) -> Any:
    """The elements of `x` where `mask` holds (the two broadcast), in row-major order."""
    shape = torch.broadcast_shapes(x.shape, mask.shape)  # type: ignore[no-untyped-call]
    return masked_rows(x.expand(shape).reshape(-1), mask.expand(shape).reshape(-1))


RAGGED: dict[Any, Callable[..., Any]] = {
    aten._unique2.default: unique2,
    aten.unique_dim.default: unique_dim,
    aten.unique_consecutive.default: unique_consecutive,
    aten.nonzero.default: nonzero,
    aten.nonzero_numpy.default: nonzero_numpy,
    aten.masked_select.default: masked_select,
}


def _narrowing(node: Any) -> tuple[torch.fx.Node, int, torch.fx.Node] | None:
    """(whole tensor, dim, length tensor) of a `slice(whole, dim, 0, length.item())`."""
    if not isinstance(node, torch.fx.Node) or node.target is not aten.slice.Tensor:
        return None
    defaults: tuple[Any, ...] = (0, None, None, 1)  # slice.Tensor's dim, start, end, step
    args: list[Any] = [*node.args, *defaults[len(node.args) - 1 :]]
    whole, dim, start, end, step = args
    if start not in (0, None) or step != 1 or not isinstance(dim, int):
        return None
    if not isinstance(end, torch.fx.Node) or end.target not in _READS:
        return None
    length = end.args[0]
    if not isinstance(whole, torch.fx.Node) or _data_dependent(whole):
        return None
    return (whole, dim, length) if isinstance(length, torch.fx.Node) else None


def _data_dependent(node: Any) -> bool:
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return isinstance(value, torch.Tensor) and not all(isinstance(s, int) for s in value.shape)


def ragged_results(graph: torch.fx.Graph) -> tuple[tuple[int, int], ...]:
    """Make, in place, each result of `graph` that is a tensor narrowed to a length read from
    the data the whole tensor, with the length appended to the results; returns (result
    index, dim) for each appended length, in order.  The checks of a length stay (they become
    run-time assertions); those of the narrowed tensor's size go with it.  Left as it is
    (returning nothing) when anything but checks uses such a length."""
    output = graph.output_node()
    results = list(cast(Sequence[Any], output.args[0]))
    narrowings = {}
    for index, node in enumerate(results):
        if _data_dependent(node):
            found = _narrowing(node)
            if found is None:
                return ()
            narrowings[index] = found
    if not narrowings:
        return ()
    reads = {node.args[3] for node in (results[i] for i in narrowings)}
    narrowed = {results[i] for i in narrowings}
    others = [node for i, node in enumerate(results) if i not in narrowings]
    if not _only_checked(reads, narrowed, others, output):
        return ()
    for index, (whole, _, _) in narrowings.items():
        results[index] = whole
    output.args = ((*results, *(length for _, _, length in narrowings.values())),)
    for node in sorted(_users_of(narrowed) | narrowed, key=_position(graph), reverse=True):
        graph.erase_node(node)
    for read in reads:
        if not read.users:
            graph.erase_node(read)
    return tuple((index, dim) for index, (_, dim, _) in narrowings.items())


def _only_checked(
    reads: set[torch.fx.Node],
    narrowed: set[torch.fx.Node],
    others: list[Any],
    output: torch.fx.Node,
) -> bool:
    """Whether the lengths `reads` reach nothing but the `narrowed` results, checks and
    arithmetic on numbers (none of the `others` results)."""
    dependent = _users_of(reads)
    if any(node in dependent for node in others):
        return False
    return all(
        node.target in _CHECKS or _is_symbolic(node) for node in dependent - narrowed - {output}
    )


def _users_of(nodes: set[torch.fx.Node]) -> set[torch.fx.Node]:
    """Every node that uses one of `nodes`, directly or not."""
    found: set[torch.fx.Node] = set()
    pending = list(nodes)
    while pending:
        for user in pending.pop().users:
            if user not in found:
                found.add(user)
                pending.append(user)
    return found


def _is_symbolic(node: torch.fx.Node) -> bool:
    """A node computing on Python numbers (a symbolic size, a comparison of one)."""
    value = node.meta.get("val")
    return isinstance(value, (torch.SymInt, torch.SymBool, torch.SymFloat, int, bool, float))


def _position(graph: torch.fx.Graph) -> Callable[[torch.fx.Node], int]:
    order = {node: i for i, node in enumerate(graph.nodes)}
    return order.__getitem__


def cut(results: list[Any], ragged: Sequence[tuple[int, int]]) -> list[Any]:
    """`results` without the trailing lengths, each result they belong to narrowed to its
    length as Python clamps a slice's end (the model's own `x[:int(n)]` may read any n), made
    contiguous as eager's are."""
    if not ragged:
        return results
    kept = list(results[: len(results) - len(ragged)])
    for (index, dim), length in zip(ragged, results[len(kept) :], strict=True):
        whole = kept[index]
        _, count = cast(tuple[int, int], slice_bounds(whole.shape[dim], 0, int(length)))
        if isinstance(whole, torch.Tensor):
            kept[index] = whole.narrow(dim, 0, count).contiguous()
        else:
            kept[index] = np.ascontiguousarray(np.take(whole, range(count), axis=dim))
    return kept
