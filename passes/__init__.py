"""shlo's own Python passes, one module per pass; importing this package registers them."""

from shlo.passes import narrow_sort_indices, op_stats

__all__ = ["narrow_sort_indices", "op_stats"]
