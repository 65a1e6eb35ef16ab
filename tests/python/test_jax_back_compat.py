"""How the JAX yardsticks judge shlo's outputs, on small hand-written exports: an approximate
top-k's indices by the values they point at, a top-k's in JAX's documented order, and @main's
result names kept when the harness returns more.

JAX's back-compatibility data itself (every CPU set, each held to XLA's stored outputs in the
interpreter, complex and shape-polymorphic sets included) is the `jax-back-compat` ratchet of
tools/check (`tools/check_conformance.py jax-back-compat`): a mismatch fails it, a set that
stops passing drops it below its floor; the refusals' wording is in the lit tests of each pass
(tests/lit/passes/jax_linalg_refused.mlir, jax_dynamic_calls.mlir)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from shlo.ir.edit import functions
from shlo.ir.stablehlo import ir
from shlo.jax import harness

APPROX_MAX_K = """
module @jit_approx_max_k {
  func.func private @top_k_gt_f32_comparator(%a: tensor<f32>, %b: tensor<f32>,
                                             %i: tensor<i32>, %j: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %0 : tensor<i1>
  }
  func.func public @main(%arg0: tensor<2x6xf32>) -> (tensor<2x3xf32> {jax.result_info = "[0]"},
                                                     tensor<2x3xi32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.iota dim = 1 : tensor<2x6xi32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1:2 = stablehlo.custom_call @ApproxTopK(%arg0, %0, %cst, %c) {
      backend_config = "", called_computations = [@top_k_gt_f32_comparator],
      mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true,
                             recall_target = 0.949999988 : f32, reduction_dim = 1 : i64,
                             reduction_input_size_override = -1 : i64, top_k = 3 : i64}
    } : (tensor<2x6xf32>, tensor<2x6xi32>, tensor<f32>, tensor<i32>)
      -> (tensor<2x3xf32>, tensor<2x3xi32>)
    return %1#0, %1#1 : tensor<2x3xf32>, tensor<2x3xi32>
  }
}
"""
TOP_K = """
func.func public @main(%arg0: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %0:2 = chlo.top_k(%arg0, k = 3) : tensor<2x6xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
}
"""
# Row 0 ties 5 at indices 1 and 4; row 1 ties 7 at 0, 2 and 5.
OPERAND = np.array([[1, 5, 2, 9, 5, 0], [7, 1, 7, 3, 0, 7]], np.float32)
STABLE = np.array([[3, 1, 4], [0, 2, 5]], np.int32)  # the indices in index order


def _case(stem: Path, text: str, indices: np.ndarray) -> Path:
    """A case as the JAX child writes one: the module, its input and XLA's outputs (the top
    values, and `indices`)."""
    values = np.take_along_axis(OPERAND, STABLE.astype(np.int64), axis=1)
    stem.with_suffix(".mlir").write_text(text)
    arrays = {"in0": OPERAND, "out0": values, "out1": indices.astype(np.int32)}
    np.savez(stem.with_suffix(".npz"), dtypes=[str(a.dtype) for a in arrays.values()], **arrays)
    return stem


def test_approximate_top_k_indices_may_point_at_any_equal_value(tmp_path: Path) -> None:
    """Where shlo's index differs from XLA's but points at an equal value the case passes
    (JAX documents the indices of `approx_max_k` only as those of the values); an index
    pointing at another value is a mismatch."""
    swapped = STABLE.copy()
    swapped[0, [1, 2]] = swapped[0, [2, 1]]
    assert harness.judge(_case(tmp_path / "tie", APPROX_MAX_K, swapped), "interpreter") == {
        "status": "pass"
    }
    wrong = STABLE.copy()
    wrong[0, 2] = 2
    verdict = harness.judge(_case(tmp_path / "wrong", APPROX_MAX_K, wrong), "interpreter")
    assert verdict["status"] == "mismatch"
    assert "indices point at other values" in verdict["detail"]


def test_top_k_indices_keep_the_order_jax_documents(tmp_path: Path) -> None:
    """`lax.top_k` documents equal values in index order: its indices are held to XLA's one
    by one, so two tied indices swapped are a mismatch."""
    assert harness.judge(_case(tmp_path / "stable", TOP_K, STABLE), "interpreter") == {
        "status": "pass"
    }
    swapped = STABLE.copy()
    swapped[1, [0, 1]] = swapped[1, [1, 0]]
    verdict = harness.judge(_case(tmp_path / "swapped", TOP_K, swapped), "interpreter")
    assert verdict == {"status": "mismatch", "detail": "output 1: 2 elements differ"}


def test_returning_the_top_k_operand_keeps_the_result_names() -> None:
    """@main returns the approximate top-k's operand after its own results, which keep JAX's
    names (one result attribute for each result, the new one without)."""
    module, found = harness.prepared_case(APPROX_MAX_K, [OPERAND])
    assert found == [harness.TopK(indices=1, operand=2, dimension=1)]
    with module.context:
        main = functions(module.operation)["main"]
        names = [str(a) for a in ir.ArrayAttr(main.attributes["res_attrs"])]
    assert names == ['{jax.result_info = "[0]"}', '{jax.result_info = "[1]"}', "{}"]
