"""`shlo-check-support{target=...}`: every op, attribute and type a consumer cannot take.

Consumers that import StableHLO stop at the first thing they do not support; this pass lists
all of them at once, each at its location, with a count per kind, and fails when any is found.
- `iree`: what IREE's StableHLO input conversion rejects, asked of iree-compile op by op
  (shlo.backend.legality), so the answer is the pinned compiler's own.
- `interpreter`: ops the reference interpreter cannot evaluate (shlo.interpreter.unsupported, each
  entry run in the lit tests), collectives outside `interpreter.run_parallel`, complex results.
- `luminal`: the rules Luminal's HLO importer documents: one function and no calls, a fixed op
  list, splat literals only, add/or/max reduce bodies, NCHW convolutions.
There is no default consumer: `target` must be named.
jaxlib's CPU LAPACK custom calls (`lapack_sgetrf_ffi`, ...) are named, with what each computes
and whether the jax profile rewrites it into portable StableHLO (`shlo-jax-linalg`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shlo.backend import legality
from shlo.interpreter.unsupported import PARALLEL_ONLY, unsupported_ops
from shlo.ir.edit import functions, ops_in
from shlo.ir.module import constant_value
from shlo.ir.stablehlo import ir
from shlo.passes.jax_linalg_calls import describe
from shlo.pipeline.python_pass import PassFailure, register_pass

Problem = tuple[Any, str, str]  # (op, kind counted in the summary, message)
_LUMINAL_OPS = {
    f"stablehlo.{name}"
    for name in (
        "abs negate sqrt rsqrt log exponential convert transpose slice not add subtract multiply "
        "divide remainder maximum minimum compare dot_general select reshape broadcast_in_dim "
        "concatenate constant reduce reduce_window convolution iota return"
    ).split()
} | {"func.func", "func.return"}
_REDUCE_BODIES = {"stablehlo.add", "stablehlo.or", "stablehlo.maximum"}
_COMPARISONS = {"EQ", "NE", "LT", "LE", "GT", "GE"}


@dataclass(frozen=True)
class CheckSupportOptions:
    target: str = field(
        default="", metadata={"help": "consumer to check for: iree, interpreter, luminal"}
    )


def _attribute(op: Any, name: str) -> str:
    return str(op.attributes[name]) if name in op.attributes else ""


def _constant(op: Any) -> str | None:
    value = constant_value(op)
    if isinstance(value, ir.DenseElementsAttr) and value.is_splat:
        return None
    return "only splat (single-value) dense literals are supported"


def _reduce(op: Any) -> str | None:
    body = {inner.name for inner in op.regions[0].blocks[0].operations} - {"stablehlo.return"}
    if body <= _REDUCE_BODIES and len(body) == 1:
        return None
    return f"reduce body must be one of add/or/maximum, found {', '.join(sorted(body))}"


def _reduce_window(op: Any) -> str | None:
    body = {inner.name for inner in op.regions[0].blocks[0].operations} - {"stablehlo.return"}
    dims = _attribute(op, "window_dimensions")
    if (
        body != {"stablehlo.maximum"}
        or len(op.operands) != 2
        or not dims.startswith("array<i64: 1, 1,")
        or "base_dilations" in op.attributes
    ):
        return "reduce_window must be a rank-4 NCHW max pool with window [1, 1, kh, kw]"
    return None


def _convolution(op: Any) -> str | None:
    numbers = _attribute(op, "dimension_numbers")
    groups = (_attribute(op, "feature_group_count"), _attribute(op, "batch_group_count"))
    if "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]" not in numbers:
        return f"convolution must be NCHW x OIHW -> NCHW, found {numbers.split('<')[-1][:-1]}"
    if any(not g.startswith("1 ") for g in groups) or "lhs_dilation" in op.attributes:
        return "convolution must have group counts of 1 and no input dilation"
    return None


def _compare(op: Any) -> str | None:
    direction = _attribute(op, "comparison_direction").split()[-1].rstrip(">")
    return None if direction in _COMPARISONS else f"comparison {direction} is not supported"


_LUMINAL_RULES: dict[str, Callable[[Any], str | None]] = {
    "stablehlo.constant": _constant,
    "stablehlo.reduce": _reduce,
    "stablehlo.reduce_window": _reduce_window,
    "stablehlo.convolution": _convolution,
    "stablehlo.compare": _compare,
}


def luminal_problems(module: Any) -> list[Problem]:
    """Everything Luminal's importer rejects, in program order."""
    problems: list[Problem] = []
    defined = [op.operation for op in functions(module).values()]
    for extra in defined[1:]:
        problems.append(
            (
                extra,
                "structure",
                "Luminal reads only the first function; "
                "flatten with shlo-flatten{profile=luminal} first",
            )
        )

    def visit(op: Any) -> ir.WalkResult:
        if op.name == "func.call":
            problems.append((op, "func.call", "calls are not supported; inline first"))
        elif op.name not in _LUMINAL_OPS and op.name != "builtin.module":
            problems.append((op, op.name, f"op '{op.name}' is not supported"))
        elif op.name in _LUMINAL_RULES and (message := _LUMINAL_RULES[op.name](op)):
            problems.append((op, op.name, message))
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    for function in defined[:1]:
        signature = str(function.attributes["function_type"])
        for element in ("f16", "bf16", "f64", "i64", "i32"):
            if f"x{element}>" in signature or f"<{element}>" in signature:
                problems.append(
                    (
                        function,
                        f"element type {element}",
                        f"Luminal treats all data as f32; the signature uses {element}",
                    )
                )
    return problems


def interpreter_problems(module: Any) -> list[Problem]:
    """Ops the reference interpreter cannot evaluate, and results it aborts on."""
    parallel = bool(ops_in(module, "interpreter.run_parallel"))
    problems: list[Problem] = [
        (op, op.name, reason)
        for op, reason in unsupported_ops(module)
        if not (parallel and op.name in PARALLEL_ONLY)
    ]
    for function in functions(module).values():
        results = str(function.attributes["function_type"]).split("->")[-1]
        if "complex<" in results and "sym_visibility" not in function.attributes:
            problems.append(
                (
                    function,
                    "complex result",
                    "the interpreter binding aborts on complex results; "
                    "return real and imaginary parts instead",
                )
            )
    return problems


def iree_problems(module: Any) -> list[Problem]:
    """Ops IREE's StableHLO input conversion rejects, each with iree-compile's own reason."""
    return [(op, op.name, message) for op, message in legality.rejected(module)]


def named_calls(problems: list[Problem]) -> list[Problem]:
    """The problems with each of jaxlib's LAPACK calls named, and whether shlo rewrites it."""
    named = []
    for op, kind, message in problems:
        target = ""
        if op.name == "stablehlo.custom_call":
            target = ir.StringAttr(op.attributes["call_target_name"]).value
        said = describe(target) if target else None
        named.append((op, target, f"{message}: {said}") if said else (op, kind, message))
    return named


TARGETS: dict[str, Callable[[Any], list[Problem]]] = {
    "iree": iree_problems,
    "interpreter": interpreter_problems,
    "luminal": luminal_problems,
}


@register_pass("shlo-check-support", options=CheckSupportOptions, checks=True)
def check_support(module: Any, options: CheckSupportOptions) -> None:
    """Report every op, attribute or element type the target consumer cannot take."""
    if options.target not in TARGETS:
        given = f"not '{options.target}'" if options.target else "none was given"
        raise PassFailure(f"target must be one of {', '.join(TARGETS)}: {given}")
    problems = named_calls(TARGETS[options.target](module))
    for op, _, message in problems:
        op.location.emit_error(f"{options.target}: {message}")
    if problems:
        counts = Counter(kind for _, kind, _ in problems)
        summary = ", ".join(f"{kind} x{count}" for kind, count in sorted(counts.items()))
        raise PassFailure(f"{len(problems)} unsupported for {options.target}: {summary}")
