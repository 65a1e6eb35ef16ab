"""Portable artifacts: StableHLO as versioned VHLO bytecode, readable by older and newer tools.

data = serialize(module, target="1.0.0")   # or "current", "minimum"
module = deserialize(data)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from shlo.errors import ShloError
from shlo.ir.module import IRModule
from shlo.ir.stablehlo import WORLD, minimum_version, stablehlo_version
from shlo.ir.stablehlo import deserialize as _deserialize
from shlo.ir.stablehlo import serialize as _serialize
from shlo.ir.worlds import ContextPolicy


class PortableError(ShloError, ValueError):
    """A target version out of range, or a module that is not pure StableHLO."""


def _version_tuple(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        raise PortableError(f"target '{version}' is not a version like 1.0.0") from None


def newer_producer(messages: Iterable[str]) -> str | None:
    """The StableHLO version that wrote an artifact, when MLIR's diagnostics name one newer
    than this build reads (the bytecode reader's "produced by: StableHLO_vX" note)."""
    for message in messages:
        if match := re.search(r"produced by: StableHLO_v(\d+\.\d+\.\d+)", message):
            if _version_tuple(match.group(1)) > _version_tuple(stablehlo_version()):
                return match.group(1)
    return None


def resolve_target(target: str) -> str:
    """`current`, `minimum` or a version, checked against what the bindings can write."""
    low, high = minimum_version(), stablehlo_version()
    version = {"current": high, "minimum": low}.get(target, target)
    if not _version_tuple(low) <= _version_tuple(version) <= _version_tuple(high):
        raise PortableError(
            f"target version {version} is outside the supported range "
            f"{low} to {high} (torch-mlir's StableHLO)"
        )
    return version


def serialize(
    module: IRModule, target: str = "current", allow_other_dialects: bool = False
) -> bytes:
    """A portable artifact of `module` for StableHLO version `target`."""
    version = resolve_target(target)
    context = module.context if module.world is WORLD else WORLD.make_context(ContextPolicy())
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    try:
        return _serialize(copy, version, allow_other_dialects)
    except ValueError:
        raise PortableError(
            "cannot serialize: the module is not pure StableHLO (allow other dialects to keep them)"
        ) from None


def deserialize(data: bytes) -> IRModule:
    """The StableHLO module in a portable artifact."""
    context = WORLD.make_context(ContextPolicy())
    module = _deserialize(context, data)
    return IRModule(WORLD, context, module.operation)
