"""Reproducers for failed pipelines: the IR before the failing segment and the pipeline to rerun.

The file is MLIR's own reproducer format (the IR, with the pipeline in an `mlir_reproducer`
external resource), so `shlo-opt --run-reproducer`, `mlir-opt --run-reproducer` and a plain
`shlo-opt FILE --pass-pipeline=...` all rerun it.  Without a path it goes to a unique temporary
file, so that concurrent runs never overwrite each other's reproducer.
"""

from __future__ import annotations

import json
import re
import shlex
import tempfile

from shlo.errors import UsageError
from shlo.ir.module import IRModule, PrintOptions
from shlo.ir.output import AtomicOutput

# Constants above this many elements are elided: the reproducer stays small and still parses.
ELIDE_ABOVE = 16
_IN_REPRODUCER = r"mlir_reproducer\s*:\s*\{[^}]*?"  # an entry of the mlir_reproducer resource
_PIPELINE = re.compile(_IN_REPRODUCER + r'pipeline\s*:\s*("(?:[^"\\]|\\.)*")', re.S)
_THREADING_OFF = re.compile(_IN_REPRODUCER + r"disable_threading\s*:\s*true", re.S)


def write_repro(
    module: IRModule, pipeline: str, extra_flags: list[str], path: str | None = None
) -> tuple[str, str]:
    """Write the reproducer; returns its path and the shlo-opt command that reruns it."""
    if path is None:
        with tempfile.NamedTemporaryFile(prefix="shlo-repro-", suffix=".mlir", delete=False) as f:
            path = f.name
    command = shlex.join(["shlo-opt", path, f"--pass-pipeline={pipeline}", *extra_flags])
    text = module.text(PrintOptions(debug_info=True, elide_elements_above=ELIDE_ABOVE)).rstrip()
    reproducer = (
        f"external_resources: {{\n    mlir_reproducer: {{\n      pipeline: {json.dumps(pipeline)},"
        f"\n      disable_threading: {str('--mlir-disable-threading' in extra_flags).lower()},"
        "\n      verify_each: true\n    }\n  }"
    )
    if text.endswith("#-}"):  # the module's own resources: one metadata block holds both
        text = f"{text[:-3].rstrip()},\n  {reproducer}\n#-}}"
    else:
        text = f"{text}\n\n{{-#\n  {reproducer}\n#-}}"
    header = (
        "// shlo-opt reproducer: the IR before the failing pipeline segment.\n"
        f"// Rerun with: {command}\n"
    )
    with AtomicOutput(path) as out:
        out.stream.write((header + text + "\n").encode())
        out.commit()
    return path, command


def read_reproducer(text: str, name: str) -> tuple[str, bool]:
    """The pipeline a reproducer records, and whether it ran without threads."""
    metadata = text[text.rfind("{-#") :] if "{-#" in text else ""
    found = _PIPELINE.search(metadata)
    if found is None:
        raise UsageError(f"{name}: no mlir_reproducer pipeline in this file (--run-reproducer)")
    return json.loads(found.group(1)), _THREADING_OFF.search(metadata) is not None
