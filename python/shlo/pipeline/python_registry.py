"""Every Python pass: shlo's own (the `shlo.passes` package, from the top-level passes/
folder) and those that installed packages register through `shlo.passes` entry points.

Loaded on first use, so that planning a pipeline of native passes never imports them.
"""

from __future__ import annotations

from shlo.pipeline.python_pass import REGISTRY, PythonPass

_ENTRY_POINTS_LOADED: list[bool] = []


def python_passes(*, plugins: bool = True) -> dict[str, PythonPass]:
    """Python passes: shlo's own, plus (with `plugins`) those of `shlo.passes` entry points.

    Scanning entry points reads every installed distribution's metadata (tens of milliseconds),
    so callers that only need shlo's own passes, or look for a name first, can skip it.
    """
    import shlo.passes  # noqa: F401  (registers shlo's own passes)

    if plugins and not _ENTRY_POINTS_LOADED:
        from importlib.metadata import entry_points

        _ENTRY_POINTS_LOADED.append(True)
        for entry_point in entry_points(group="shlo.passes"):
            entry_point.load()
    return REGISTRY
