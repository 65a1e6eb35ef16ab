"""`shlo-jax-drop-attributes`: JAX's export annotations that IREE and the interpreter do not take.

`jax.export` annotates the module (`mhlo.num_partitions`, `mhlo.num_replicas`,
`jax.uses_shape_polymorphism`), arguments and results (`mhlo.sharding`, `mhlo.layout_mode`,
`mhlo.memory_kind`) and ops (`mhlo.frontend_attributes`, `mhlo.sharding`).  For one device
they say nothing a consumer needs: this pass removes every `mhlo.*` attribute and the module's
`jax.*` ones, keeping `jax.result_info`, the names of the results.  It also drops the
`sym_visibility = "public"` JAX spells out (the default), which `shlo-verify-flat` counts as
private.  A module exported for more
than one device is refused: its collectives would need the devices it names.
"""

from __future__ import annotations

from typing import Any

from shlo.ir.edit import functions, ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass

_DEVICE_COUNTS = ("mhlo.num_partitions", "mhlo.num_replicas")


def _dropped(name: str, top: bool) -> bool:
    return name.startswith("mhlo.") or (top and name.startswith("jax."))


def _strip(attributes: Any, top: bool = False) -> None:
    for name in [name for name in attributes if _dropped(name, top)]:
        del attributes[name]


def _strip_each(function: Any, key: str) -> None:
    """Drop `mhlo.*` entries of each argument's or result's attribute dictionary."""
    if key not in function.attributes:
        return
    kept = []
    for entry in ir.ArrayAttr(function.attributes[key]):
        named = [ir.DictAttr(entry)[i] for i in range(len(ir.DictAttr(entry)))]
        kept.append(ir.DictAttr.get({n.name: n.attr for n in named if not _dropped(n.name, False)}))
    function.attributes[key] = ir.ArrayAttr.get(kept)


def _is_public(function: Any) -> bool:
    attributes = function.attributes
    visibility = attributes["sym_visibility"] if "sym_visibility" in attributes else None
    return visibility is not None and ir.StringAttr(visibility).value == "public"


@register_pass("shlo-jax-drop-attributes")
def jax_drop_attributes(module: Any, options: None) -> None:
    """Remove JAX's mhlo.* annotations and the module's jax.* ones (jax.result_info stays)."""
    with module.context:
        attributes = module.operation.attributes
        for name in _DEVICE_COUNTS:
            if name in attributes and ir.IntegerAttr(attributes[name]).value != 1:
                count = ir.IntegerAttr(attributes[name]).value
                raise PassFailure(f"exported for {count} devices ({name}); shlo runs one")
        _strip(attributes, top=True)
        for function in functions(module).values():
            if _is_public(function):
                del function.attributes["sym_visibility"]  # the default, which JAX spells out
            _strip_each(function, "arg_attrs")
            _strip_each(function, "res_attrs")
        for op in ops_in(module):
            if op.name != "func.func":
                _strip(op.attributes)
