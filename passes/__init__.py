"""shlo's own Python passes, one module per pass; importing this package registers them."""

from shlo.passes import (
    annotate_broadcasts,
    check_support,
    flatten,
    narrow_sort_indices,
    op_stats,
    patchify_convolutions,
    strip_data,
)

__all__ = [
    "annotate_broadcasts",
    "check_support",
    "flatten",
    "narrow_sort_indices",
    "op_stats",
    "patchify_convolutions",
    "strip_data",
]
