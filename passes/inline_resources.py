"""`shlo-inline-resources{element-types=i64}`: resource-blob constants as dense elements.

IREE's Vulkan target narrows i64 to i32, and cannot retype a constant held in a resource blob
(as torch-mlir imports every tensor constant): iree-compile fails with "'arith.constant' op
failed to verify that all of {value, result} have same type".  Written as dense elements the
constant narrows like any other.  Without `element-types`, every such constant is rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.pipeline.python_pass import register_pass


@dataclass(frozen=True)
class InlineResourcesOptions:
    element_types: tuple[str, ...] = field(
        default=(), metadata={"help": "the element types to rewrite (default: all)"}
    )


@register_pass("shlo-inline-resources", options=InlineResourcesOptions)
def inline_resource_constants(module: Any, options: InlineResourcesOptions) -> None:
    """Rewrite dense_resource constants of the chosen element types as dense elements."""
    from shlo.ir.resources import inline_resources  # numpy stays out of shlo-opt's start-up

    chosen = set(options.element_types)
    with module.context:
        inline_resources(module, lambda element: not chosen or element in chosen)
