"""`shlo-jax-linalg`: jaxlib's CPU LAPACK calls replaced by portable StableHLO, or refused.

`jnp.linalg`, `jax.scipy.linalg` and `lax.linalg` lower on CPU to `lapack_*_ffi` custom
calls that only XLA:CPU runs.  Each is replaced by a private function that JAX lowers, in a
child process, from its portable algorithms at the call's own types, returning what the
LAPACK routine returns (shlo.jax.linalg_contracts); a call with none (general eigen-decomposition,
Schur, Hessenberg, tridiagonal reduction) fails the pass, named at its location.

Each call is described (target, operand and result types, its `mhlo.backend_config`
integers) and sent to the JAX child (`python -m shlo.jax.linalg_child`); the functions of the
module it returns are renamed apart, made private and put into the module, and the call
becomes a `func.call` of its @main.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any, cast

from shlo.ir.edit import drop_interface_attributes, ops_in
from shlo.ir.stablehlo import ir
from shlo.passes.jax_linalg_calls import REWRITTEN, describe, routine
from shlo.pipeline.python_pass import PassFailure, register_pass

CHILD_TIMEOUT_S = 600.0
_FUNCTION = re.compile(r"func\.func (?:public |private )?@([\w$.-]+)")


def lapack_calls(module: Any) -> list[Any]:
    """The module's custom calls to jaxlib's CPU LAPACK targets, in program order."""
    return [op for op in ops_in(module, "stablehlo.custom_call") if describe(target(op))]


def target(op: Any) -> str:
    """A custom call's target name."""
    return cast(str, ir.StringAttr(op.attributes["call_target_name"]).value)


def _types(values: Any) -> list[list[Any]]:
    shaped = [ir.RankedTensorType(v.type) for v in values]
    return [[list(t.shape), str(t.element_type)] for t in shaped]


def _config(op: Any) -> dict[str, int]:
    if "mhlo.backend_config" not in op.attributes:
        return {}
    attributes = ir.DictAttr(op.attributes["mhlo.backend_config"])
    named = (attributes[i] for i in range(len(attributes)))
    return {a.name: ir.IntegerAttr(a.attr).value for a in named if _integer(a.attr)}


def _integer(attribute: Any) -> bool:
    try:
        ir.IntegerAttr(attribute)
    except ValueError:
        return False
    return True


def describe_call(op: Any) -> dict[str, Any]:
    """What the JAX child needs to write the call's replacement."""
    return {
        "target": target(op),
        "operands": _types(op.operands),
        "results": _types(op.results),
        "config": _config(op),
    }


def replacements(calls: list[dict[str, Any]]) -> list[dict[str, str]]:
    """The JAX child's answer for each call: {"text": module} or {"refused": reason}."""
    command = [sys.executable, "-m", "shlo.jax.linalg_child"]
    try:
        done = subprocess.run(
            command,
            input=json.dumps(calls),
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as error:
        raise PassFailure(f"JAX took over {error.timeout:.0f} s to write replacements") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise PassFailure(f"the JAX child failed to write LAPACK replacements: {last}")
    answers: list[dict[str, str]] = json.loads(done.stdout)
    return answers


def _splice(module: Any, text: str, prefix: str) -> str:
    """Put the functions of `text` into `module` under `prefix`; the name of its @main."""
    names = _FUNCTION.findall(text)
    renamed = re.sub(r"@([\w$.-]+)", lambda m: f"@{prefix}{m[1]}" if m[1] in names else m[0], text)
    parsed = ir.Module.parse(renamed, module.context)
    body = module.operation.regions[0].blocks[0]
    for function in list(parsed.body.operations):
        function.detach_from_parent()
        drop_interface_attributes(function)  # JAX's result names, for its @main
        function.attributes["sym_visibility"] = ir.StringAttr.get("private", module.context)
        body.append(function)
    return f"{prefix}main"


def _replace(op: Any, callee: str) -> None:
    with ir.InsertionPoint(op), op.location:
        call = ir.Operation.create(
            "func.call",
            results=[r.type for r in op.results],
            operands=list(op.operands),
            attributes={"callee": ir.FlatSymbolRefAttr.get(callee)},
        )
    for old, new in zip(op.results, call.results, strict=True):
        old.replace_all_uses_with(new)
    op.erase()


def rewrite_lapack_calls(module: Any) -> int:
    """Replace every LAPACK call of `module` (an `ir.Module`); how many were replaced.

    Raises PassFailure at the first call with no portable replacement, before any change."""
    calls = lapack_calls(module)
    for op in calls:
        if routine(target(op)) not in REWRITTEN:
            raise PassFailure(str(describe(target(op))), op)
    if not calls:
        return 0
    keys = [json.dumps(describe_call(op), sort_keys=True) for op in calls]
    unique = list(dict.fromkeys(keys))  # one replacement for each target at each set of types
    answers = dict(zip(unique, replacements([json.loads(k) for k in unique]), strict=True))
    for op, key in zip(calls, keys, strict=True):
        if "refused" in answers[key]:
            raise PassFailure(f"{target(op)}: {answers[key]['refused']}", op)
    with module.context:
        callees = {
            key: _splice(module, answers[key]["text"], f"__shlo_{json.loads(key)['target']}_{i}_")
            for i, key in enumerate(unique)
        }
        for op, key in zip(calls, keys, strict=True):
            _replace(op, callees[key])
    return len(calls)


@register_pass("shlo-jax-linalg")
def jax_linalg(module: Any, options: None) -> None:
    """Replace each LAPACK custom call with JAX's portable algorithm for it."""
    rewrite_lapack_calls(module)
