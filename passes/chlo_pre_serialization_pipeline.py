"""`chlo-pre-serialization-pipeline`: upstream's pipeline from CHLO and shape ops to StableHLO.

StableHLO registers it with `PassPipelineRegistration` in stablehlo-opt only, so the wheels'
bindings lack it; it expands to the same passes, in upstream's order (PassPipelines.cpp), the
first two nested in `func.func` (where they are restricted to) so that the pipeline also runs
when named inside `--pass-pipeline='builtin.module(...)'`.
"""

from __future__ import annotations

from shlo.pipeline.python_pass import register_pipeline


@register_pipeline("chlo-pre-serialization-pipeline")
def chlo_pre_serialization_pipeline(options: None) -> str:
    """CHLO, then shape-related ops, to StableHLO; leftover casts reconciled."""
    return (
        "func.func(chlo-legalize-to-stablehlo, shape-legalize-to-stablehlo), "
        "reconcile-unrealized-casts"
    )
