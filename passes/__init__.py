"""shlo's own Python passes, one module per pass (shlo-flatten's also holds shlo-verify-flat).

`PASS_MODULES` names the module that registers each pass, so that a pipeline imports only the
passes it runs: `shlo.pipeline.python_registry` imports a module when its pass is asked for,
and a test checks that the modules register exactly these names.
"""

PASS_MODULES: dict[str, str] = {
    "chlo-pre-serialization-pipeline": "chlo_pre_serialization_pipeline",
    "hlo-test-broadcast": "hlo_test_broadcast",
    "interpreter-instrument-with-probe": "instrument_with_probe",
    "shlo-accumulate-in-f32": "accumulate_in_f32",
    "shlo-annotate-broadcasts": "annotate_broadcasts",
    "shlo-atan2-edge-cases": "atan2_edge_cases",
    "shlo-barrier-dequantized-operands": "barrier_dequantized_operands",
    "shlo-channels-last": "channels_last",
    "shlo-check-support": "check_support",
    "shlo-empty-contractions": "empty_contractions",
    "shlo-f64-math-in-f32": "f64_math_in_f32",
    "shlo-flatten": "flatten",
    "shlo-hashed-rng": "hashed_rng",
    "shlo-inline-resources": "inline_resources",
    "shlo-narrow-sort-indices": "narrow_sort_indices",
    "shlo-op-stats": "op_stats",
    "shlo-own-f64-converts": "own_f64_converts",
    "shlo-own-sort-operands": "own_sort_operands",
    "shlo-pad-attention-keys": "pad_attention_keys",
    "shlo-patchify-convolutions": "patchify_convolutions",
    "shlo-power-edge-cases": "power_edge_cases",
    "shlo-scalars-to-stablehlo": "scalars_to_stablehlo",
    "shlo-shield-returned-arguments": "shield_returned_arguments",
    "shlo-split-grouped-convolutions": "split_grouped_convolutions",
    "shlo-split-long-reductions": "split_long_reductions",
    "shlo-strip-data": "strip_data",
    "shlo-torch-nan-order": "torch_nan_order",
    "shlo-trig-range-reduction": "trig_range_reduction",
    "shlo-verify-flat": "flatten",
    "stablehlo-aggressive-folder": "stablehlo_aggressive_folder",
    "stablehlo-aggressive-simplification": "stablehlo_aggressive_simplification",
    "stablehlo-deserialize": "stablehlo_deserialize",
    "stablehlo-target-independent-optimization": "stablehlo_target_independent_optimization",
}
