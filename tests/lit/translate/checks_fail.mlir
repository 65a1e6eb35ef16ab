// Failing checks: each names the check, where it is, and both values; the run exits 1.
// RUN: not shlo-translate --interpret -split-input-file %s 2>&1 | filecheck %s

// CHECK: checks_fail.mlir:[[# @LINE + 4]]:3: error: check.expect_eq_const failed in @wrong_sum: expected [2, 4, 7], got [2, 4, 6]
func.func @wrong_sum() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = stablehlo.add %0, %0 : tensor<3xi32>
  check.expect_eq_const %1, dense<[2, 4, 7]> : tensor<3xi32>
  func.return
}

// -----

// CHECK: checks_fail.mlir:[[# @LINE + 3]]:3: error: check.expect_almost_eq_const failed in @not_close_enough
func.func @not_close_enough() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.0, 2.01]> : tensor<2xf32>
  func.return
}

// -----

// An op the interpreter cannot evaluate aborts the interpreter; the error names it at its
// location, and the rest of the file still runs.
func.func @uses_fft() {
  %0 = stablehlo.constant dense<[(1.0, 0.0), (2.0, 0.0)]> : tensor<2xcomplex<f32>>
  // CHECK: checks_fail.mlir:[[# @LINE + 1]]:8: error: @uses_fft: the interpreter does not support stablehlo.fft (it aborts on its complex values)
  %1 = stablehlo.fft %0, type = FFT, length = [2] : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  %2 = stablehlo.real %1 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_almost_eq_const %2, dense<[3.0, -1.0]> : tensor<2xf32>
  func.return
}
func.func @still_runs() {
  %0 = stablehlo.constant dense<1> : tensor<i32>
  // CHECK: checks_fail.mlir:[[# @LINE + 1]]:3: error: check.expect_eq_const failed in @still_runs: expected 2, got 1
  check.expect_eq_const %0, dense<2> : tensor<i32>
  func.return
}

// -----

// An op the interpreter lacks but a pass decomposes: the error says which pass.
func.func @batch_norm() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %s = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: checks_fail.mlir:[[# @LINE + 1]]:9: error: @batch_norm: the interpreter does not support stablehlo.batch_norm_inference; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))'
  %bn = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %bn, dense<0.0> : tensor<2x2xf32>
  func.return
}
