"""Every Python pass: shlo's own (the `shlo.passes` package, from the top-level passes/
folder) and those that installed packages register through `shlo.passes` entry points.

Loaded on first use, so that planning a pipeline of native passes never imports them, and
looked up by name, so that a pipeline imports only the modules of the Python passes it names.
"""

from __future__ import annotations

import functools
import importlib

from shlo.pipeline.python_pass import REGISTRY, PythonPass


def python_pass(name: str, *, plugins: bool = False) -> PythonPass | None:
    """The Python pass `name`, or None: shlo's own (its module imported on first use), else
    (with `plugins`) one that a `shlo.passes` entry point registers."""
    from shlo.passes import PASS_MODULES

    if name not in REGISTRY and name in PASS_MODULES:
        _import_own(name, PASS_MODULES[name])
    if name not in REGISTRY and plugins:
        _load_plugins()
    return REGISTRY.get(name)


def python_passes(*, plugins: bool = True) -> dict[str, PythonPass]:
    """Every Python pass: shlo's own, plus (with `plugins`) those of `shlo.passes` entry points.

    Scanning entry points reads every installed distribution's metadata (tens of milliseconds),
    so callers that only need shlo's own passes can skip it.
    """
    from shlo.passes import PASS_MODULES

    for name, module in PASS_MODULES.items():
        if name not in REGISTRY:
            _import_own(name, module)
    if plugins:
        _load_plugins()
    return REGISTRY


def _import_own(name: str, module: str) -> None:
    importlib.import_module(f"shlo.passes.{module}")
    if name not in REGISTRY:  # the index in shlo.passes disagrees with the module
        raise ImportError(f"shlo.passes.{module} does not register the pass '{name}'")


@functools.cache
def _load_plugins() -> None:
    """Import every `shlo.passes` entry point, once per process."""
    from importlib.metadata import entry_points

    for entry_point in entry_points(group="shlo.passes"):
        entry_point.load()
