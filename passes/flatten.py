"""`shlo-flatten{profile=default|luminal|iree decompose keep=a,b}`: one public function, checked.

Inline every call, drop what nothing uses, canonicalize and check the result is flat: one
public function, no calls, no other symbols but composites' decompositions, and static shapes
where the profile's consumer needs them (Luminal reads static shapes only).  Composites survive
by default, so a backend can map them to fast kernels; `decompose` turns them into calls to
their decompositions (inlined in turn), all but those named in `keep`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shlo.ir.edit import functions, ops_in
from shlo.ir.stablehlo import ir
from shlo.pipeline.python_pass import PassFailure, register_pass, register_pipeline

PROFILES = {"default": False, "luminal": True, "iree": False}  # profile -> needs static shapes


@dataclass(frozen=True)
class FlattenOptions:
    profile: str = field(default="default", metadata={"help": "default, luminal or iree"})
    decompose: bool = field(default=False, metadata={"help": "decompose composites"})
    keep: tuple[str, ...] = field(default=(), metadata={"help": "composites not to decompose"})


@register_pipeline("shlo-flatten", options=FlattenOptions)
def flatten(options: FlattenOptions) -> str:
    """Inline, drop dead symbols, canonicalize (composites kept unless asked); check it is flat."""
    if options.profile not in PROFILES:
        raise PassFailure(f"profile must be one of {', '.join(PROFILES)}")
    if options.keep and not options.decompose:
        raise PassFailure("keep names composites to spare from decompose; add decompose=true")
    keep = f"{{except={','.join(options.keep)}}}" if options.keep else ""
    decompose = (
        f"func.func(stablehlo-legalize-composite-to-call{keep}), " if options.decompose else ""
    )
    return (
        f"{decompose}inline, symbol-dce, canonicalize, "
        f"shlo-verify-flat{{profile={options.profile}}}"
    )


@dataclass(frozen=True)
class VerifyFlatOptions:
    profile: str = field(default="default", metadata={"help": "default, luminal or iree"})


def _problems(module: Any, static: bool) -> list[tuple[Any, str]]:
    defined = [op.operation for op in functions(module).values()]
    public = [f for f in defined if "sym_visibility" not in f.attributes]
    problems: list[tuple[Any, str]] = []
    if len(public) != 1:
        problems.append((module, f"expected one public function, found {len(public)}"))
    kept = {
        str(op.attributes["decomposition"]).lstrip("@")
        for op in ops_in(module, "stablehlo.composite")
    }
    for function in defined:
        name = ir.StringAttr(function.attributes["sym_name"]).value
        if function not in public and name not in kept:
            problems.append((function, f"function @{name} is left over"))
    for op in ops_in(module):
        if op.name == "func.call":
            problems.append((op, "a call is left (recursion, or a callee that cannot inline)"))
        if static and any(
            isinstance(r.type, ir.ShapedType) and not r.type.has_static_shape for r in op.results
        ):
            problems.append((op, "dynamic shape: this profile needs static shapes"))
    return problems


@register_pass("shlo-verify-flat", options=VerifyFlatOptions, checks=True)
def verify_flat(module: Any, options: VerifyFlatOptions) -> None:
    """Fail unless the module is one public function with no calls (the flatten postcondition)."""
    if options.profile not in PROFILES:
        raise PassFailure(f"profile must be one of {', '.join(PROFILES)}, not '{options.profile}'")
    problems = _problems(module, PROFILES[options.profile])
    for op, message in problems:
        op.location.emit_error(f"not flat: {message}")
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        raise PassFailure(f"module is not flat for profile '{options.profile}' ({count})")
