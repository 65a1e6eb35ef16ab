"""`stablehlo-deserialize`: upstream's pass pipeline from VHLO of any version to StableHLO.

StableHLO registers it with `PassPipelineRegistration` in stablehlo-opt only, so the wheels'
bindings lack it; upstream's RUN lines and users' scripts name it.  It expands to the same two
passes, with `current` spelled out as the bindings' version: `vhlo-to-version` takes `#.#.#`
only (upstream passes `Version::getCurrentVersion().toString()`).
"""

from __future__ import annotations

from shlo.ir.stablehlo import stablehlo_version
from shlo.pipeline.python_pass import register_pipeline


@register_pipeline("stablehlo-deserialize")
def stablehlo_deserialize(options: None) -> str:
    """VHLO (any supported version) to the current VHLO, then to StableHLO."""
    return f"vhlo-to-version{{target={stablehlo_version()}}}, vhlo-legalize-to-stablehlo"
