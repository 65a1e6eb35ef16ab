"""`stablehlo-aggressive-simplification`: upstream StableHLO's canonicalization pass on shlo's
port of its patterns, in place of the torch-mlir wheel's native tool.

The wheel compiles the pass into torch-mlir-opt (not into the bindings), and that build aborts on
some of upstream's own test inputs; a run there also costs a subprocess and two bytecode trips.
This is upstream's pass (StablehloAggressiveSimplification.cpp at openxla/stablehlo 7b1b157):
`populateStablehloCanonicalizationPatterns` applied greedily to each function, with its one
option (Passes.td enables only fold-op-element-limit here, which bounds the select fold).  It
declares that it replaces torch-mlir-opt's pass of the same name, so the registry lists one
entry and the planner runs this one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.ir.stablehlo import ir, rewrite
from shlo.passes.stablehlo_aggressive_folder import (
    FOLD_OP_ELEMENT_LIMIT_HELP,
    Int64,
    run_on_functions,
)
from shlo.passes.stablehlo_simplification_patterns import populate_canonicalization_patterns
from shlo.pipeline.python_pass import register_pass


@dataclass(frozen=True)
class SimplificationOptions:
    """The pass's options: of the optimization passes' flags, upstream enables only this one."""

    fold_op_element_limit: Int64 = field(
        default=Int64("65536"), metadata={"help": FOLD_OP_ELEMENT_LIMIT_HELP}
    )


@register_pass(
    "stablehlo-aggressive-simplification",
    options=SimplificationOptions,
    description="Canonicalizes StableHLO operations",
    anchor="func.func",
    replaces="torch-mlir-opt",
)
def stablehlo_aggressive_simplification(module: Any, options: SimplificationOptions) -> None:
    """Upstream's simplification patterns, greedily, on each function."""

    def build() -> Any:
        patterns = rewrite.RewritePatternSet()
        populate_canonicalization_patterns(patterns, options, ir.Context.current)
        return patterns

    with module.context:
        run_on_functions(module, build)
