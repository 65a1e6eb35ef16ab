"""The JAX child of the yardsticks: exports each case on CPU and runs it on XLA:CPU.

    python -m shlo.jax.harness_child FOLDER < cases.json > answers.json
    python -m shlo.jax.harness_child --list harness        # every primitive harness, in order
    python -m shlo.jax.harness_child --list back_compat    # every CPU back-compatibility set

In: a list of {"kind": "linalg", "name", "dtype"}, {"kind": "harness", "name"} or
{"kind": "back_compat", "name"} (a stored export, its inputs and XLA's outputs as stored).  For the
i-th case it writes FOLDER/i.mlir (StableHLO as `jax.jit(...).lower` prints it, without
debug information or Shardy's rules) and FOLDER/i.npz (`in0...`, the inputs, and `out0...`,
XLA:CPU's outputs, flattened in pytree order; `dtypes`, their dtypes by name), and answers
{"ok": true} or {"export_error": reason}: what JAX itself cannot lower or run on CPU is counted
apart.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jax
import numpy as np

SHARDY = re.compile(r", sdy\.sharding_rule = #sdy\.op_sharding_rule<[^}]*\}, custom>")


def _sources(kind: str) -> dict[str, Any]:
    from shlo.jax import harness_cases

    if kind == "harness":
        return harness_cases.primitive_harnesses()
    return harness_cases.back_compat_data()


def _stored(data: dict[str, Any], stem: Path) -> dict[str, Any]:
    """A back-compatibility set as it is stored: no JAX run, XLA's outputs from the file."""
    return _save(stem, data["mlir_module_text"], data["inputs"], data["expected_outputs"])


def _save(stem: Path, text: str, inputs: Any, outputs: Any) -> dict[str, Any]:
    """Write a case: stem.mlir without Shardy's rules, stem.npz with in0..., out0... and
    `dtypes`, each array's dtype by name (`np.savez` writes bfloat16 as 2-byte voids)."""
    stem.with_suffix(".mlir").write_text(SHARDY.sub("", text))
    arrays: dict[str, Any] = {f"in{i}": np.asarray(a) for i, a in enumerate(inputs)}
    arrays |= {f"out{i}": np.asarray(o) for i, o in enumerate(outputs)}
    dtypes = np.array([str(a.dtype) for a in arrays.values()])
    np.savez(stem.with_suffix(".npz"), dtypes=dtypes, **arrays)
    return {"ok": True}


def _program(case: dict[str, Any], harnesses: dict[str, Any]) -> Any:
    from shlo.jax import harness_cases

    if case["kind"] == "linalg":
        return harness_cases.linalg_program(case["name"], case["dtype"])
    return harness_cases.harness_program(harnesses[case["name"]])


def export(case: dict[str, Any], harnesses: dict[str, Any], stem: Path) -> dict[str, Any]:
    """Write the case's module and arrays under `stem`; what happened."""
    if case["kind"] == "back_compat":
        return _stored(harnesses[case["name"]], stem)
    wide = case.get("dtype") or str(getattr(harnesses.get(case["name"]), "dtype", ""))
    jax.config.update("jax_enable_x64", any(w in wide for w in ("64", "128")))  # type: ignore[no-untyped-call]
    try:
        function, args = _program(case, harnesses)
        args = [_as_jax_takes(a) for a in args]
        jitted = jax.jit(function, keep_unused=True)  # @main takes every input saved
        text = jitted.lower(*args).as_text(debug_info=False)
        outputs = jax.tree.leaves(jitted(*args))
    except Exception as error:  # JAX's own failure, whatever its type, is the case's status
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        return {"export_error": f"{type(error).__name__}: {first[:300]}"}
    return _save(stem, text, args, outputs)


def _as_jax_takes(array: np.ndarray) -> np.ndarray:
    """`array` in the dtype JAX computes it in (int64 as int32 without 64-bit mode), the
    dtype of the exported module's argument."""
    return array.astype(jax.dtypes.canonicalize_dtype(array.dtype), copy=False)


def main(argv: list[str]) -> int:
    jax.config.update("jax_platforms", "cpu")  # type: ignore[no-untyped-call]
    if argv[:1] == ["--list"]:
        print("\n".join(_sources(argv[1])))
        return 0
    folder = Path(argv[0])
    cases = json.load(sys.stdin)
    kinds = {case["kind"] for case in cases} - {"linalg"}
    harnesses = {name: value for kind in kinds for name, value in _sources(kind).items()}
    answers = [export(case, harnesses, folder / str(i)) for i, case in enumerate(cases)]
    json.dump(answers, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
