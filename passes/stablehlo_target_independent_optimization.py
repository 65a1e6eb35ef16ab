"""`stablehlo-target-independent-optimization`: upstream's folder and simplification patterns
in one greedy rewrite, which the wheels lack.

openxla/stablehlo registers it in stablehlo-opt only (StablehloTargetIndependentOptimization.cpp
at 7b1b157).  As upstream's, it adds the folder's patterns with benefit 2 and then
`populateStablehloCanonicalizationPatterns` (benefit 1, DRR patterns with their own), so
MLIR's applicator tries them in upstream's order, and runs them greedily on each function.
Its options are the folder's three; fold-op-element-limit also bounds the simplifier's select
fold.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.stablehlo import ir, rewrite
from shlo.passes.stablehlo_aggressive_folder import (
    FOLDER_PATTERNS,
    OptimizationOptions,
    add_patterns,
    run_on_functions,
)
from shlo.passes.stablehlo_simplification_patterns import populate_canonicalization_patterns
from shlo.pipeline.python_pass import register_pass


@register_pass(
    "stablehlo-target-independent-optimization",
    options=OptimizationOptions,
    description="Runs canonicalizers, folders, and other target-independent optimizations.",
    anchor="func.func",
)
def stablehlo_target_independent_optimization(module: Any, options: OptimizationOptions) -> None:
    """The folder's patterns and upstream's simplification patterns in one greedy rewrite."""

    def build() -> Any:
        patterns = rewrite.RewritePatternSet()
        add_patterns(patterns, FOLDER_PATTERNS, options, benefit=2)
        populate_canonicalization_patterns(patterns, options, ir.Context.current)
        return patterns

    with module.context:
        run_on_functions(module, build)
