"""The yardsticks' shlo side: JAX's exports through shlo, beside XLA:CPU's own outputs.

JAX runs only in `shlo.jax.harness_child`; here the module it wrote is brought to its inputs'
shapes as one function and has JAX's custom calls rewritten (the steps of `shlo-jax-flatten`),
then runs on an IREE target or in the reference interpreter, and its outputs are held to
XLA's: a decomposition as a whole, an approximate top-k's indices by the values they point
at, everything else value by value.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import ml_dtypes
import numpy as np

from shlo.backend.compile import compile_module
from shlo.backend.targets import Target
from shlo.errors import ShloError
from shlo.interpreter.evaluate import interpret_module
from shlo.ir.edit import (
    functions,
    ops_in,
    return_also,
    returned_values,
)
from shlo.ir.element_types import as_saved
from shlo.ir.load import load
from shlo.ir.module import IRModule
from shlo.ir.stablehlo import ir
from shlo.jax.process import failure
from shlo.passes.jax_approx_top_k import TARGETS as APPROX_TOP_K
from shlo.passes.jax_flatten import REWRITES, front
from shlo.passes.jax_linalg_calls import routine
from shlo.pipeline.run import run_pipeline
from shlo.runtime.loaded import LoadedModule
from shlo.runtime.value_syntax import type_spec

TARGETS = ("llvm-cpu", "vulkan", "interpreter")


class HarnessError(ShloError):
    """The JAX child failed as a whole (not one case's export, which is a status)."""


def export_cases(cases: list[dict[str, Any]], folder: Path, timeout: float) -> list[dict[str, Any]]:
    """Export `cases` with JAX into `folder` (i.mlir, i.npz); each case's answer."""
    command = [sys.executable, "-m", "shlo.jax.harness_child", str(folder)]
    try:
        done = subprocess.run(
            command, input=json.dumps(cases), capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise HarnessError(f"the JAX child took over {timeout:.0f} s to export") from None
    if done.returncode == 0:
        answers: list[dict[str, Any]] = json.loads(done.stdout)
        return answers
    raise HarnessError(f"exporting with JAX failed: {failure(done.stderr, done.returncode)}")


def arrays(stem: Path) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(inputs, XLA's outputs) that the child saved for a case, bfloat16 as bfloat16."""
    with np.load(stem.with_suffix(".npz")) as saved:
        dtypes = saved["dtypes"].tolist()
        count = sum(name.startswith("in") for name in saved.files)
        names = [f"in{i}" for i in range(count)] + [f"out{i}" for i in range(len(dtypes) - count)]
        loaded = [as_saved(saved[name], dtype) for name, dtype in zip(names, dtypes, strict=True)]
    return loaded[:count], loaded[count:]


@dataclass(frozen=True)
class TopK:
    """An approximate top-k whose indices @main returns, and the extra result that holds its
    operand: JAX documents the indices only as those of the values (`lax.approx_max_k`)."""

    indices: int
    operand: int
    dimension: int


def _types(inputs: Sequence[np.ndarray]) -> list[str]:
    return [f"tensor<{type_spec(a)}>" for a in inputs]


def _polymorphic(module: IRModule) -> bool:
    """Whether @main takes an argument of a shape known only at run time."""
    with module.context:
        arguments = functions(module.operation)["main"].regions[0].blocks[0].arguments
        shaped = [a.type for a in arguments if isinstance(a.type, ir.ShapedType)]
    return not all(t.has_static_shape for t in shaped)


def prepared(text: str, inputs: Sequence[np.ndarray] = ()) -> IRModule:
    """JAX's module with its custom calls rewritten, inlined into one function; a
    shape-polymorphic one at the shapes of `inputs`."""
    return prepared_case(text, inputs, top_k=False)[0]


def prepared_case(
    text: str, inputs: Sequence[np.ndarray], top_k: bool = True
) -> tuple[IRModule, list[TopK]]:
    """`prepared`, and with `top_k` @main made to return also the operand of each approximate
    top-k whose indices it returns as they are."""
    module = load(text)
    types = _types(inputs) if _polymorphic(module) else []
    module = run_pipeline(module, f"builtin.module({front('cpu', types)})")
    found = _return_top_k_operands(module) if top_k else []
    return run_pipeline(module, f"builtin.module({REWRITES})"), found


def _return_top_k_operands(module: IRModule) -> list[TopK]:
    with module.context:
        main = functions(module.operation)["main"]
        returned = returned_values(main)
        found: list[TopK] = []
        operands: list[Any] = []
        for op in ops_in(main, "stablehlo.custom_call"):
            if ir.StringAttr(op.attributes["call_target_name"]).value not in APPROX_TOP_K:
                continue
            indices = [i for i, v in enumerate(returned) if v == op.results[1]]
            if not indices:
                continue
            config = ir.DictAttr(op.attributes["mhlo.backend_config"])
            dimension = ir.IntegerAttr(config["reduction_dim"]).value
            position = len(returned) + len(operands)
            found += [TopK(i, position, dimension) for i in indices]
            operands.append(op.operands[0])
        if operands:
            return_also(main, operands)
    return found


def run(module: IRModule, inputs: list[np.ndarray], target: str) -> list[np.ndarray]:
    """`module`'s @main on `inputs`: in the interpreter, or compiled for `target` and run."""
    if target == "interpreter":
        return [np.asarray(r) for r in interpret_module(module, inputs)]
    chosen = Target.get(target)
    loaded = LoadedModule(compile_module(module, chosen).vmfb, chosen.default_device)
    return loaded("main", *inputs)


# Relative tolerance by the narrowest float type on either side (IREE narrows f64 to f32).
TOLERANCE = {2: 2e-2, 4: 2e-4, 8: 1e-9}
WIDE = {np.dtype("float64"): np.float32, np.dtype("complex128"): np.complex64}
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


def narrowed(inputs: list[np.ndarray], target: str) -> list[np.ndarray]:
    """The inputs an IREE module takes: f64 and c128 narrowed, as shlo compiles them."""
    if target == "interpreter":
        return inputs
    return [a.astype(WIDE[a.dtype]) if a.dtype in WIDE else a for a in inputs]


def _sign_fixed(a: np.ndarray, axis: int) -> np.ndarray:
    """Each vector along `axis` scaled so its largest entry is positive real (eigen- and
    singular vectors are unique only up to that)."""
    index = np.expand_dims(np.argmax(np.abs(a), axis=axis), axis)
    lead = np.take_along_axis(a, index, axis=axis)
    with np.errstate(over="ignore", invalid="ignore"):  # infinities: compared apart, by place
        return cast(np.ndarray, a * np.conj(lead) / np.where(np.abs(lead) == 0, 1, np.abs(lead)))


def mismatch(got: np.ndarray, want: np.ndarray) -> str | None:
    """Why `got` is not XLA's `want` (shape, NaN and infinity places, values), or None."""
    if got.shape != want.shape:
        return f"shape {got.shape} != XLA's {want.shape}"
    if got.size == 0:
        return None
    size = min(got.dtype.itemsize, want.dtype.itemsize) // (2 if want.dtype.kind == "c" else 1)
    if want.dtype == BFLOAT16:  # exact in float32, where numpy's float checks apply
        got, want = got.astype(BFLOAT16).astype(np.float32), want.astype(np.float32)
    if want.dtype.kind not in "fc":
        same = np.array_equal(got.astype(want.dtype), want)
        return None if same else f"{np.sum(got.astype(want.dtype) != want)} elements differ"
    got = got.astype(want.dtype)
    if not np.array_equal(np.isnan(got), np.isnan(want)):
        return "NaN in different places"
    tol = TOLERANCE.get(size, 2e-4)
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]), initial=1.0))
    candidates = [got] if got.ndim < 2 else [got, _sign_fixed(got, -2), _sign_fixed(got, -1)]
    wanted = [want] if got.ndim < 2 else [want, _sign_fixed(want, -2), _sign_fixed(want, -1)]
    for g, w in zip(candidates, wanted, strict=True):
        if np.array_equal(g[~finite], w[~finite], equal_nan=True) and np.allclose(
            g[finite], w[finite], rtol=tol, atol=tol * scale
        ):
            return None
    worst = float(np.max(np.abs(got[finite] - want[finite]), initial=0.0))
    return f"max abs error {worst:.3g} (tolerance {tol:g} x {scale:.3g})"


def _rebuilt(vectors: np.ndarray, values: np.ndarray) -> np.ndarray:
    return cast(
        np.ndarray, (vectors * values[..., None, :]) @ np.conj(np.swapaxes(vectors, -1, -2))
    )


def eigen_mismatch(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """eigh's outputs (vectors, values): XLA's values, and V diag(w) V^H equal to XLA's, since
    the vectors of a repeated eigenvalue are any basis of its space."""
    vectors, values = (np.asarray(g, dtype=w.dtype) for g, w in zip(got, want, strict=True))
    if problem := mismatch(values, want[1]):
        return f"eigenvalues: {problem}"
    if problem := mismatch(_rebuilt(vectors, values), _rebuilt(*want)):
        return f"V diag(w) V^H: {problem}"
    return None


def svd_mismatch(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """svd's outputs (u, s, vh): XLA's singular values, and u diag(s) vh equal to XLA's, since
    the vectors of a repeated singular value are any basis of its space."""
    u, s, vh = (np.asarray(g, dtype=w.dtype) for g, w in zip(got, want, strict=True))
    if problem := mismatch(s, want[1]):
        return f"singular values: {problem}"
    k = s.shape[-1]

    def rebuilt(u: np.ndarray, s: np.ndarray, vh: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :])

    if problem := mismatch(rebuilt(u, s, vh), rebuilt(*want)):
        return f"u diag(s) vh: {problem}"
    return None


def top_k_mismatch(
    got: np.ndarray, want: np.ndarray, operand: np.ndarray, top_k: TopK
) -> str | None:
    """An approximate top-k's indices: each distinct along the dimension and pointing at the
    operand's value where XLA's index points (ties in any order, as JAX documents)."""
    if got.shape != want.shape:
        return f"shape {got.shape} != XLA's {want.shape}"
    axis = top_k.dimension
    at_got = np.take_along_axis(operand, got.astype(np.int64), axis=axis)
    at_want = np.take_along_axis(operand, want.astype(np.int64), axis=axis)
    distinct = np.all(np.diff(np.sort(got, axis=axis), axis=axis) != 0)
    if not distinct or not np.array_equal(at_got, at_want, equal_nan=True):
        return f"{np.sum(at_got != at_want)} indices point at other values than XLA's"
    return None


WholeCheck = Callable[[list[np.ndarray], list[np.ndarray]], str | None]
# Outputs unique only up to a basis of each repeated value's space, checked as a whole, by the
# LAPACK routine the module calls and the number of outputs its decomposition has.
CHECKS = {"syevd": (eigen_mismatch, 2), "heevd": (eigen_mismatch, 2)}
CHECKS |= {"gesdd": (svd_mismatch, 3), "gesvd": (svd_mismatch, 3)}
_CALL = re.compile(r"custom_call @(\w+)")


def whole_check(text: str, outputs: int) -> WholeCheck | None:
    """The check of a decomposition's outputs as a whole, when the module computes one (a
    LAPACK call of CHECKS) and returns exactly its outputs; else None (value by value)."""
    routines = {routine(target) for target in _CALL.findall(text)} & set(CHECKS)
    if len(routines) != 1:
        return None
    check, arity = CHECKS[routines.pop() or ""]
    return check if arity == outputs else None


def judge(stem: Path, target: str) -> dict[str, str]:
    """A case's status on `target`: pass, mismatch, or refused with shlo's one-line reason.
    A decomposition is checked as a whole (`whole_check`), an approximate top-k's indices by
    the values they point at, everything else value by value.  On IREE, where shlo computes
    f64 in f32, XLA's outputs are narrowed before they are compared."""
    inputs, want = arrays(stem)
    text = stem.with_suffix(".mlir").read_text()
    try:
        module, top_ks = prepared_case(text, inputs)
        got = run(module, narrowed(inputs, target), target)
    except ShloError as error:
        first = str(error).strip().splitlines() or [type(error).__name__]
        reason = next((line for line in first if "error:" in line), first[0])
        return {"status": "refused", "detail": reason.strip()[:300]}
    extra = len({t.operand for t in top_ks})
    if len(got) - extra != len(want):
        return {"status": "mismatch", "detail": f"{len(got) - extra} outputs, XLA has {len(want)}"}
    got, want = [np.asarray(g) for g in got], narrowed(want, target)
    indices = {t.indices: t for t in top_ks}
    if check := whole_check(text, len(want)):
        problem = check(got[: len(want)], want)
        return {"status": "mismatch", "detail": problem} if problem else {"status": "pass"}
    for index, (g, w) in enumerate(zip(got, want, strict=False)):
        if index in indices:
            problem = top_k_mismatch(g, w, got[indices[index].operand], indices[index])
        else:
            problem = mismatch(g, w)
        if problem:
            return {"status": "mismatch", "detail": f"output {index}: {problem}"}
    return {"status": "pass"}
