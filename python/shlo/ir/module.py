"""Parsing, printing and moving IR, written once for both binding worlds.

Every function takes the `World` it works in; nothing here imports a binding.  Text and bytecode
are told apart by bytecode's magic number, never by the file name.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, TypeVar

from shlo.errors import ParseError, UsageError
from shlo.ir.bytecode_guard import check_nesting
from shlo.ir.check_dialect import CheckSyntaxError, generic_names, to_custom
from shlo.ir.diagnostics import Diagnostic, format_all, from_mlir_error
from shlo.ir.source import Source, wrap_in_module
from shlo.ir.worlds import World

_NOT_ONE_OP = "source must contain a single top-level operation"
UNNAMED = "-"
Parsed = TypeVar("Parsed")


@dataclass(frozen=True)
class PrintOptions:
    """The printing flags of mlir-opt that shlo-opt supports."""

    generic: bool = False
    debug_info: bool = False
    pretty_debug_info: bool = False
    local_scope: bool = False
    name_loc_prefix: bool = False
    skip_regions: bool = False
    elide_elements_above: int | None = None
    elide_resources_above: int | None = None  # bytes of a resource blob
    bytecode: bool = False
    bytecode_version: int | None = None


@dataclass
class IRModule:
    """A top-level `builtin.module` and the world and context it lives in."""

    world: World
    context: Any
    operation: Any

    def copy(self) -> IRModule:
        """A copy in the same context (attributes, and so resource blobs, are shared)."""
        return IRModule(self.world, self.context, self.operation.clone())

    def to_bytecode(self) -> bytes:
        buffer = io.BytesIO()
        self.operation.write_bytecode(buffer)
        return buffer.getvalue()

    def transfer(self, world: World, context: Any) -> IRModule:
        """This module in another world, handed over as bytecode (objects never cross)."""
        if world is self.world and context is self.context:
            return self
        try:
            return from_bytecode(world, context, self.to_bytecode())
        except world.ir.MLIRError:
            # Unregistered ops (the check dialect) do not cross between the wheels' MLIR
            # versions as bytecode; generic text with its locations does.
            text = self.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
            return IRModule(world, context, world.ir.Module.parse(text, context).operation)

    def write(self, stream: BinaryIO, options: PrintOptions) -> None:
        """Print as mlir-opt prints its output: the module, then a newline (or bytecode)."""
        if options.bytecode:
            try:
                self.operation.write_bytecode(stream, desired_version=options.bytecode_version)
            except ValueError as error:  # "Unable to honor desired bytecode version N"
                raise UsageError(f"cannot write MLIR bytecode: {error}") from None
            return
        # get_asm gathers the text natively; print(file=) makes a Python call per fragment.
        text = self.operation.get_asm(
            binary=True,
            print_generic_op_form=options.generic,
            enable_debug_info=options.debug_info,
            pretty_debug_info=options.pretty_debug_info,
            use_local_scope=options.local_scope,
            use_name_loc_as_prefix=options.name_loc_prefix,
            skip_regions=options.skip_regions,
            large_elements_limit=options.elide_elements_above,
            large_resource_limit=options.elide_resources_above,
            assume_verified=True,
        )
        if b'"shlo.check.' in text:  # the check dialect's stand-ins, in its own names
            text = (generic_names if options.generic else to_custom)(text.decode()).encode()
        stream.write(text + b"\n")

    def text(self, options: PrintOptions = PrintOptions()) -> str:
        buffer = io.BytesIO()
        self.write(buffer, options)
        return buffer.getvalue().decode()

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        ops = [op.operation for op in self.operation.regions[0].blocks[0].operations]
        names = [f"@{self.world.ir.StringAttr(op.attributes['sym_name']).value}" for op in ops
                 if "sym_name" in op.attributes]  # fmt: skip
        return f"<IRModule ({self.world.name} world): {', '.join(names) or 'no symbols'}>"


def constant_value(op: Any) -> Any | None:
    """An op's `value` attribute, or None when it has none or the bindings cannot hand it over.

    Complex-valued dense elements raise TypeError on access (and abort the process when read
    through `NamedAttribute.attr`), so every read of a constant goes through here.
    """
    if "value" not in op.attributes:
        return None
    try:
        return op.attributes["value"]
    except TypeError:
        return None


def from_bytecode(world: World, context: Any, data: bytes) -> IRModule:
    return IRModule(world, context, world.ir.Module.parse(data, context).operation)


def parse_source(world: World, context: Any, source: Source) -> IRModule:
    """Parse text or bytecode into a module, with locations that name the user's file.

    The one exception: text whose first line is an operation and which is not a file of its
    own (stdin, a split chunk) gets MLIR's unnamed buffer name `-` (see `UNNAMED`).

    Raises the world's `MLIRError` on malformed input.
    """
    if not source.is_bytecode:
        check_nesting(source.data, source.name)
    if source.is_file and source.first_line == 1:
        operation = world.ir.Module.parseFile(source.name, context).operation
    elif source.is_bytecode:
        operation = world.ir.Module.parse(source.data, context).operation
    else:
        operation = _parse_text(world, context, source)
    return IRModule(world, context, operation)


def _parse_text(world: World, context: Any, source: Source) -> Any:
    text = source.padded_text()
    try:
        operation = world.ir.Operation.parse(text, source_name=source.name, context=context)
    except world.ir.MLIRError as error:
        if _NOT_ONE_OP not in str(error):
            raise
        operation = None
    if operation is not None and operation.operation.name == "builtin.module":
        return operation.operation
    wrapped = wrap_in_module(text, source.name)
    if wrapped is None:  # MLIR's own implicit module; its locations name the file "-"
        return world.ir.Module.parse(text, context).operation
    return world.ir.Operation.parse(wrapped, source_name=source.name, context=context).operation


def diagnosed(
    parse: Callable[[], Parsed], bytecode: bool = False
) -> tuple[Parsed | None, list[Diagnostic]]:
    """Run `parse`; malformed input comes back as its diagnostics instead of an `MLIRError`
    (each world has its own class, so it is recognized by name) or a `CheckSyntaxError`.
    Those of `bytecode` are each kept to one line (`Diagnostic.on_one_line`)."""
    module, diagnostics = _parsed(parse)
    return module, [d.on_one_line() for d in diagnostics] if bytecode else diagnostics


def _parsed(parse: Callable[[], Parsed]) -> tuple[Parsed | None, list[Diagnostic]]:
    try:
        return parse(), []
    except CheckSyntaxError as error:
        return None, [Diagnostic("error", str(error), UNNAMED, error.line, error.column)]
    except Exception as error:
        if type(error).__name__ == "MLIRError":
            return None, from_mlir_error(error)
        if "str_from_cstr_and_size" in str(error):  # MLIR's message was not UTF-8
            message = "malformed input: MLIR could not read it, and its message is not text"
            return None, [Diagnostic("error", message, UNNAMED)]
        raise


def report(diagnostics: list[Diagnostic], source: Source) -> str:
    """Diagnostics of `source` as mlir-opt prints them, with the offending lines."""
    renamed = [d.renamed(UNNAMED, source.name) for d in diagnostics]
    return format_all(renamed, {} if source.is_bytecode else {source.name: source.padded_text()})


def parse_or_raise(world: World, context: Any, source: Source) -> IRModule:
    """`parse_source`, with malformed input raised as a `ParseError` that prints like mlir-opt."""
    module, diagnostics = diagnosed(
        lambda: parse_source(world, context, source), source.is_bytecode
    )
    if module is None:
        raise ParseError(report(diagnostics, source).rstrip())
    return module
