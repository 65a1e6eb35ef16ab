"""shlo's own Python passes, one module per pass; importing this package registers them."""

from shlo.passes import (
    accumulate_in_f32,
    annotate_broadcasts,
    atan2_edge_cases,
    check_support,
    f64_math_in_f32,
    flatten,
    hashed_rng,
    inline_resources,
    instrument_with_probe,
    narrow_sort_indices,
    op_stats,
    patchify_convolutions,
    scalars_to_stablehlo,
    shield_returned_arguments,
    split_grouped_convolutions,
    strip_data,
)

__all__ = [
    "accumulate_in_f32",
    "annotate_broadcasts",
    "atan2_edge_cases",
    "check_support",
    "f64_math_in_f32",
    "flatten",
    "hashed_rng",
    "inline_resources",
    "instrument_with_probe",
    "narrow_sort_indices",
    "op_stats",
    "patchify_convolutions",
    "scalars_to_stablehlo",
    "shield_returned_arguments",
    "split_grouped_convolutions",
    "strip_data",
]
