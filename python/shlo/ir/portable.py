"""Portable artifacts: StableHLO as versioned VHLO bytecode, readable by older and newer tools.

data = serialize(module, target="1.0.0")   # or "current", "minimum"
module = deserialize(data)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from shlo.errors import LocatedPortableError, PortableError
from shlo.ir.bytecode_guard import check_bytecode
from shlo.ir.diagnostics import Diagnostic, format_diagnostic
from shlo.ir.edit import ops_in
from shlo.ir.module import UNNAMED, IRModule, constant_value
from shlo.ir.stablehlo import WORLD, minimum_version, stablehlo_version
from shlo.ir.stablehlo import deserialize as _deserialize
from shlo.ir.stablehlo import serialize as _serialize
from shlo.ir.worlds import ContextPolicy


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
    if re.fullmatch(r"\d+\.\d+\.\d+", version) is None:
        raise PortableError(
            f"target '{target}' is not a version like 1.0.0 (or current, or minimum); "
            f"this StableHLO writes {low} to {high}"
        )
    if not _version_tuple(low) <= _version_tuple(version) <= _version_tuple(high):
        raise PortableError(
            f"target version {version} is outside the supported range "
            f"{low} to {high} (torch-mlir's StableHLO)"
        )
    return version


def readable_by(reader: str) -> str:
    """The newest version that this StableHLO writes and a reader of version `reader` reads."""
    version = min(reader, stablehlo_version(), key=_version_tuple)
    if _version_tuple(version) < _version_tuple(minimum_version()):
        raise PortableError(
            f"the reader takes StableHLO up to {reader}, older than the oldest version this "
            f"StableHLO writes ({minimum_version()})"
        )
    return version


def serialize(
    module: IRModule,
    target: str = "current",
    allow_other_dialects: bool = False,
    source_name: str = UNNAMED,
) -> bytes:
    """A portable artifact of `module` for StableHLO version `target`.  Without
    `allow_other_dialects`, the first op that is not StableHLO is reported where it is (the
    buffer MLIR calls `-` named `source_name`)."""
    version = resolve_target(target)
    context = module.context if module.world is WORLD else WORLD.make_context(ContextPolicy())
    copy = WORLD.ir.Module.parse(module.to_bytecode(), context)
    if _holds_resources(copy):  # VHLO has no resources: their bytes go inline
        text = copy.operation.get_asm(enable_debug_info=True, assume_verified=True)
        copy = WORLD.ir.Module.parse(_resources_inlined(text), context)
    foreign = None if allow_other_dialects else _first_foreign_op(copy)
    if foreign is not None:
        message = (
            f"'{foreign.name}' is not StableHLO: a portable artifact holds only stablehlo, "
            "func and builtin ops (--allow-other-dialects keeps the rest)"
        )
        where = Diagnostic.at(foreign.location, "error", message).renamed(UNNAMED, source_name)
        raise LocatedPortableError(format_diagnostic(where, {}))
    try:
        return _serialize(copy, version, allow_other_dialects)
    except ValueError:
        raise PortableError(
            "cannot serialize: the module is not pure StableHLO (allow other dialects to keep them)"
        ) from None


_PORTABLE_DIALECTS = ("builtin", "func", "stablehlo")


def _first_foreign_op(module: Any) -> Any:
    for op in ops_in(module):
        if op.name.split(".", 1)[0] not in _PORTABLE_DIALECTS:
            return op
    return None


def _holds_resources(module: object) -> bool:
    """Whether a constant's value is a `dense_resource` blob (attributes come back
    undowncast: the cast is the type test)."""
    for op in ops_in(module, "stablehlo.constant"):
        value = constant_value(op)
        try:
            WORLD.ir.DenseResourceElementsAttr(value)
        except (ValueError, TypeError):
            continue
        return True
    return False


_RESOURCE_USE = re.compile(r"dense_resource<([^>]+)>")
# `name: "0x<4-byte alignment><data>"` in the builtin dialect's resources
_BLOB = re.compile(r'^\s*"?([^\s":]+)"?: "0x[0-9A-Fa-f]{8}([0-9A-Fa-f]*)"', re.MULTILINE)


def _resources_inlined(text: str) -> str:
    """`text` with each `dense_resource<NAME>` written as `dense<"0xDATA">`, the bytes of its
    blob (torch-mlir's import keeps weights as resources; a portable artifact cannot)."""
    body, marker, resources = text.partition("\n{-#")
    blobs = dict(_BLOB.findall(resources))
    inlined = _RESOURCE_USE.sub(
        lambda use: f'dense<"0x{blobs[use.group(1)]}">' if use.group(1) in blobs else use.group(0),
        body,
    )
    return inlined + marker + resources


def deserialize(data: bytes, name: str = "<bytes>") -> IRModule:
    """The StableHLO module in a portable artifact, which may be damaged or hostile: read first
    where a crash of MLIR's bytecode reader, or of the conversion from VHLO, cannot end this
    process (`check_bytecode`)."""
    check_bytecode(data, name, portable=True)
    context = WORLD.make_context(ContextPolicy())
    try:
        module = _deserialize(context, data)
    except ValueError as error:
        raise PortableError(f"{name}: failed to deserialize portable artifact ({error})") from None
    return IRModule(WORLD, context, module.operation)
