"""Reproducers for failed pipelines: the IR before the failing segment and the command to rerun.

The idea of torch-mlir's `run_pipeline_with_repro_report`, written to a unique temporary file so
that concurrent runs never overwrite each other's reproducer.
"""

from __future__ import annotations

import shlex
import tempfile

from shlo.ir.module import IRModule, PrintOptions

# Constants above this many elements are elided: the reproducer stays small and still parses.
ELIDE_ABOVE = 16


def write_repro(module: IRModule, pipeline: str, extra_flags: list[str]) -> tuple[str, str]:
    """Write the reproducer; returns its path and the shlo-opt command that reruns it."""
    with tempfile.NamedTemporaryFile(
        "w", prefix="shlo-repro-", suffix=".mlir", delete=False
    ) as handle:
        command = shlex.join(["shlo-opt", handle.name, f"--pass-pipeline={pipeline}", *extra_flags])
        handle.write("// shlo-opt reproducer: the IR before the failing pipeline segment.\n")
        handle.write(f"// Rerun with: {command}\n")
        handle.write(module.text(PrintOptions(debug_info=True, elide_elements_above=ELIDE_ABOVE)))
    return handle.name, command
