"""`shlo-jax-flatten{platform=cpu types=tensor<4x8xf32>,...}`: a JAX export as IREE and the
interpreter take it.

One platform kept (`shlo-jax-platform`); shape-polymorphic dimensions refined to `types`, the
static types of @main's arguments (`stablehlo-refine-arguments`); JAX's shape assertions checked
at those shapes and removed; the exported function inlined (its dimension arguments go with it);
shapes refined and dynamic ops made static (`stablehlo-refine-shapes`,
`stablehlo-canonicalize-dynamism`); jaxlib's LAPACK calls rewritten or refused by name
(`shlo-jax-linalg`, which reads their `mhlo.backend_config`); `ApproxTopK` calls written as the
exact sort XLA:CPU runs (`shlo-jax-approx-top-k`); scatters given leading indexed
dimensions, the form IREE lowers (`shlo-jax-scatter-dims`); JAX's annotations dropped, the
result names kept; then checked flat, with static shapes.  Without `types`, @main's argument
types stay as exported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shlo.pipeline.python_pass import register_pipeline


@dataclass(frozen=True)
class JaxFlattenOptions:
    platform: str = field(default="cpu", metadata={"help": "the platform to keep"})
    types: tuple[str, ...] = field(
        default=(), metadata={"help": "@main's argument types, static (refines symbolic shapes)"}
    )


def front(platform: str, types: tuple[str, ...] | list[str]) -> str:
    """The steps that make a JAX export one function at static shapes for one platform."""
    refine = f"stablehlo-refine-arguments{{types={','.join(types)}}}, " if types else ""
    return (
        f"shlo-jax-platform{{platform={platform}}}, {refine}"
        "shlo-jax-shape-assertions, inline, symbol-dce, stablehlo-refine-shapes, "
        "func.func(stablehlo-canonicalize-dynamism), canonicalize"
    )


# The custom calls of JAX's that only XLA runs, replaced; then flat, scatters as IREE lowers them.
REWRITES = (
    "shlo-jax-dynamic-calls, stablehlo-refine-shapes, shlo-top-k-as-sort, shlo-jax-linalg, "
    "shlo-jax-approx-top-k, inline, symbol-dce, canonicalize, shlo-jax-scatter-dims"
)


@register_pipeline("shlo-jax-flatten", options=JaxFlattenOptions)
def jax_flatten(options: JaxFlattenOptions) -> str:
    """Turn a JAX export into one flat function with static shapes for one platform."""
    return (
        f"{front(options.platform, options.types)}, {REWRITES}, "
        "shlo-jax-drop-attributes, shlo-verify-flat{profile=luminal}"
    )
