"""The two MLIR binding worlds shlo drives, behind one interface.

torch-mlir's bindings (with StableHLO) and IREE's bindings are separate copies of MLIR with
separate contexts; their objects never mix.  Each world lives in its own module, the only place
that imports those bindings (`shlo.ir.stablehlo`, `shlo.ir.iree`), and IR crosses between worlds
as bytecode (`IRModule.transfer` in `shlo.ir.module`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, cast

from shlo.errors import UsageError

WORLD_NAMES = ("stablehlo", "iree")


@dataclass(frozen=True)
class ContextPolicy:
    """What every context of a run agrees on: the `mlir-opt` flags that shape a context."""

    allow_unregistered_dialects: bool = False
    threading: bool = True


@dataclass(frozen=True)
class World:
    """One binding world: its `ir` and `passmanager` modules and its context factory."""

    name: str
    ir: ModuleType
    passmanager: ModuleType
    make_context: Callable[[ContextPolicy], Any]


def get_world(name: str) -> World:
    """Import a world on first use: each costs a few hundred milliseconds to load."""
    if name not in WORLD_NAMES:
        raise UsageError(f"unknown binding world {name!r}; expected one of {WORLD_NAMES}")
    return cast(World, importlib.import_module(f"shlo.ir.{name}").WORLD)
