"""`shlo-jax-platform{platform=cpu}`: one platform of a multi-platform JAX export.

`jax.export` for several platforms gives @main a first argument, the platform index
(`jax.global_constant = "_platform_index"`), that picks each platform's code at run time
(`stablehlo.case`).  This pass fixes it to the position of `platform` among those the module
was exported for (`jax.platforms`, which shlo's JAX import writes) and drops the argument, so
the module takes only the user's inputs and canonicalization folds the other platforms away.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.ir.edit import erase_arguments, functions
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass

PLATFORM_INDEX = "_platform_index"


@dataclass(frozen=True)
class JaxPlatformOptions:
    platform: str = field(default="cpu", metadata={"help": "the platform to keep"})


def global_constant(function: Any, index: int) -> str | None:
    """The `jax.global_constant` name of argument `index` of `function`, if it has one."""
    if "arg_attrs" not in function.attributes:
        return None
    attrs = ir.DictAttr(ir.ArrayAttr(function.attributes["arg_attrs"])[index])
    return (
        ir.StringAttr(attrs["jax.global_constant"]).value
        if "jax.global_constant" in attrs
        else None
    )


def _platforms(module: Any) -> list[str]:
    attributes = module.operation.attributes
    if "jax.platforms" not in attributes:
        raise PassFailure(
            "@main takes JAX's platform index, but the module does not say which platforms it "
            'was exported for: add jax.platforms = ["cpu", ...] in their order'
        )
    return [ir.StringAttr(p).value for p in ir.ArrayAttr(attributes["jax.platforms"])]


@register_pass("shlo-jax-platform", options=JaxPlatformOptions)
def jax_platform(module: Any, options: JaxPlatformOptions) -> None:
    """Fix JAX's platform index argument of @main to one platform and drop the argument."""
    with module.context:
        main = functions(module).get("main")
        if main is None or not main.regions[0].blocks:
            raise PassFailure("no @main with a body")
        entry = main.regions[0].blocks[0]
        if not entry.arguments or global_constant(main, 0) != PLATFORM_INDEX:
            return
        platforms = _platforms(module)
        if options.platform not in platforms:
            raise PassFailure(f"exported for {', '.join(platforms)}, not for {options.platform}")
        argument = entry.arguments[0]
        value = ir.IntegerAttr.get(argument.type.element_type, platforms.index(options.platform))
        with ir.InsertionPoint.at_block_begin(entry), argument.location:
            index = ir.Operation.create(
                "stablehlo.constant",
                results=[argument.type],
                attributes={"value": ir.DenseElementsAttr.get_splat(argument.type, value)},
            )
        argument.replace_all_uses_with(index.results[0])
        erase_arguments(main, [0])
