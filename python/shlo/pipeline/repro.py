"""Reproducers for failed pipelines: the IR before the failing segment and the pipeline to rerun.

The file is MLIR's own reproducer format (the IR, with the pipeline in an `mlir_reproducer`
external resource), so `shlo-opt --run-reproducer`, `mlir-opt --run-reproducer` and a plain
`shlo-opt FILE --pass-pipeline=...` all rerun it.  Without a path it goes to a new file in
`reproducers/` under the cache folder (`shlo.settings.cache_dir()`), so that concurrent runs
never overwrite each other's; only the newest `KEEP` stay there.
"""

from __future__ import annotations

import json
import re
import shlex
import tempfile
from pathlib import Path

from shlo.errors import UsageError
from shlo.ir.module import IRModule, PrintOptions
from shlo.ir.output import AtomicOutput
from shlo.settings import cache_dir

# Constants above this many elements are elided: the reproducer stays small and still parses.
ELIDE_ABOVE = 16
KEEP = 20  # reproducers kept in the cache folder, newest first
_IN_REPRODUCER = r"mlir_reproducer\s*:\s*\{[^}]*?"  # an entry of the mlir_reproducer resource
_PIPELINE = re.compile(_IN_REPRODUCER + r'pipeline\s*:\s*("(?:[^"\\]|\\.)*")', re.S)
_THREADING_OFF = re.compile(_IN_REPRODUCER + r"disable_threading\s*:\s*true", re.S)


def write_repro(
    module: IRModule, pipeline: str, extra_flags: list[str], path: str | None = None
) -> tuple[str, str]:
    """Write the reproducer; returns its path and the shlo-opt command that reruns it."""
    if path is None:
        path = _new_file()
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


def write_input(data: bytes) -> str:
    """Keep an input that crashed a tool in the reproducer folder; returns its path."""
    path = _new_file()
    with AtomicOutput(path) as out:
        out.stream.write(data)
        out.commit()
    return path


def reproducer_dir() -> Path:
    return Path(cache_dir()) / "reproducers"


def _new_file() -> str:
    """A fresh file in the reproducer folder (the system's temporary folder if that cannot be
    written), the oldest beyond `KEEP` removed."""
    folder = reproducer_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.gettempdir())
    with tempfile.NamedTemporaryFile(
        prefix="shlo-repro-", suffix=".mlir", dir=folder, delete=False
    ) as scratch:
        path = scratch.name
    if folder == reproducer_dir():
        older = sorted(folder.glob("shlo-repro-*.mlir"), key=lambda p: p.stat().st_mtime)
        for stale in older[: max(len(older) - KEEP, 0)]:
            stale.unlink(missing_ok=True)
    return path


def read_reproducer(text: str, name: str) -> tuple[str, bool]:
    """The pipeline a reproducer records, and whether it ran without threads."""
    metadata = text[text.rfind("{-#") :] if "{-#" in text else ""
    found = _PIPELINE.search(metadata)
    if found is None:
        raise UsageError(f"{name}: no mlir_reproducer pipeline in this file (--run-reproducer)")
    try:
        pipeline = json.loads(found.group(1))
    except json.JSONDecodeError as error:
        raise UsageError(
            f"{name}: the reproducer's pipeline is not a valid string ({error})"
        ) from None
    return pipeline, _THREADING_OFF.search(metadata) is not None
