"""Weights that never enter the IR: IREE parameter references in place of @main's weight
arguments (the archive itself is `shlo.runtime.archives.write_archive`'s).

A module imported with `weights="external"` takes its weights as @main's leading arguments.
Each becomes an `ml_program.global` whose value is `#stream.parameter.named<"model"::"KEY">`
(KEY: the state_dict key), loaded where the argument was used.  IREE still hoists the
weight-only work (transposes, packing) out of the calls (on llvm-cpu its encoder packs the
archive during compilation), so calls run as fast as with inline constants, and compile time
and memory no longer grow with the weights.
"""

from __future__ import annotations

from shlo.ir.edit import erase_arguments, functions
from shlo.ir.module import IRModule
from shlo.runtime.archives import PARAMETER_SCOPE


def externalize(module: IRModule, names: list[str], function: str = "main") -> None:
    """Replace `function`'s leading arguments by loads of parameters named `names`.

    The references are attributes of IREE's `stream` dialect, which the StableHLO world does not
    register: the module is then handed to iree-compile as text."""
    ir = module.world.ir
    module.context.allow_unregistered_dialects = True
    body = module.operation.regions[0].blocks[0]
    main = functions(module.operation)[function]
    entry = main.regions[0].blocks[0]
    with module.context, ir.Location.unknown():
        for index, name in enumerate(names):
            argument = entry.arguments[index]
            symbol = f"__shlo_parameter_{index}"
            reference = ir.Attribute.parse(
                f'#stream.parameter.named<"{PARAMETER_SCOPE}"::{_quoted(name)}> : {argument.type}'
            )
            with ir.InsertionPoint.at_block_begin(body):
                ir.Operation.create(
                    "ml_program.global",
                    attributes={
                        "sym_name": ir.StringAttr.get(symbol),
                        "sym_visibility": ir.StringAttr.get("private"),
                        "type": ir.TypeAttr.get(argument.type),
                        "value": reference,
                    },
                )
            with ir.InsertionPoint.at_block_begin(entry):
                load = ir.Operation.create(
                    "ml_program.global_load_const",
                    results=[argument.type],
                    attributes={"global": ir.FlatSymbolRefAttr.get(symbol)},
                )
            argument.replace_all_uses_with(load.result)
        erase_arguments(main, range(len(names)))


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'
