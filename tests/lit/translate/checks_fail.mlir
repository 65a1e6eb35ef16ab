// Failing checks: each names the check, its function, where it is, and the first element that
// differs; the run exits 1.  Checks are evaluated wherever they run: in @main, in the
// functions it calls, in loop bodies.
// RUN: not shlo-translate --interpret -split-input-file %s 2>&1 | filecheck %s

// CHECK: checks_fail.mlir:[[# @LINE + 4]]:3: error: check.expect_eq_const failed in @wrong_sum: Element values don't match: 6 (actual) vs 7 (expected) at index [2]; 1 of 3 elements differ
func.func @wrong_sum() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = stablehlo.add %0, %0 : tensor<3xi32>
  check.expect_eq_const %1, dense<[2, 4, 7]> : tensor<3xi32>
  func.return
}

// -----

// CHECK: checks_fail.mlir:[[# @LINE + 3]]:3: error: check.expect_almost_eq_const failed in @not_close_enough: Element values don't match with tolerance 0.000100: 2.0 (actual) vs 2.009999990463257 (expected) at index [1]
func.func @not_close_enough() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.0, 2.01]> : tensor<2xf32>
  func.return
}

// -----

// A check in a private function that @main calls, on a value computed there.
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  // CHECK: checks_fail.mlir:[[# @LINE + 1]]:3: error: check.expect_eq_const failed in @helper: Element values don't match: 9.0 (actual) vs 8.0 (expected) at index [1]
  check.expect_eq_const %0, dense<[4.0, 8.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func public @main() {
  %0 = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %1 = func.call @helper(%0) : (tensor<2xf32>) -> tensor<2xf32>
  // A check on a value that comes back through func.call, written over several lines.
  // CHECK: checks_fail.mlir:[[# @LINE + 1]]:3: error: check.expect_close failed in @main: Elements values don't match with respect to ULP difference in [0, 3]
  check.expect_close %1,
                     %0,
                     max_ulp_difference = 3
      : tensor<2xf32>, tensor<2xf32>
  func.return
}

// -----

// A check in a loop body runs once per iteration; the first failing one is named.
func.func @main() {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %r = stablehlo.while(%i = %c0) : tensor<i32>
  cond {
    %lt = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    // CHECK: checks_fail.mlir:[[# @LINE + 1]]:5: error: check.expect_eq_const failed in @main: Element values don't match: 1 (actual) vs 0 (expected) at index []; 1 of 1 elements differ (execution 2 of 3)
    check.expect_eq_const %i, dense<0> : tensor<i32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next : tensor<i32>
  }
  func.return
}

// -----

// Complex values: compared part by part.
// CHECK: checks_fail.mlir:[[# @LINE + 4]]:3: error: check.expect_eq failed in @complex_values: Element values don't match: (1.0, 2.0) (actual) vs (1.0, -2.0) (expected) at index [0]
func.func @complex_values() {
  %0 = stablehlo.constant dense<[(1.0, 2.0), (3.0, 4.0)]> : tensor<2xcomplex<f64>>
  %1 = stablehlo.constant dense<[(1.0, -2.0), (3.0, 4.0)]> : tensor<2xcomplex<f64>>
  check.expect_eq %0, %1 : tensor<2xcomplex<f64>>
  func.return
}

// -----

// NaN never equals NaN under expect_eq, but is almost equal to it and 0 ULPs from it.
// CHECK: checks_fail.mlir:[[# @LINE + 5]]:3: error: check.expect_eq_const failed in @nan
// CHECK-NOT: failed in @nan
func.func @nan() {
  %0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  check.expect_eq_const %0, dense<0x7FC00000> : tensor<f32>
  check.expect_almost_eq %0, %1 : tensor<f32>
  check.expect_close %0, %1, max_ulp_difference = 0 : tensor<f32>, tensor<f32>
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

// -----

// Upstream runs the only function, else @main: with neither, nothing silently passes (Api.cpp's
// getMainFunction, at the module).
// CHECK: checks_fail.mlir:{{[0-9]+}}:{{[0-9]+}}: error: module must have entry func with name main
func.func @first() {
  func.return
}
func.func @second() {
  func.return
}

// -----

// A check inside a branch: upstream evaluates branches with no fallback for the check dialect
// (Ops.cpp's ifOp and caseOp), so the run aborts there rather than passing unchecked.
// CHECK: checks_fail.mlir:[[# @LINE + 1]]:1: error: @in_branch: a check op inside an if or case branch: upstream's interpreter evaluates branches without the check dialect and aborts (Unsupported op)
func.func @in_branch() {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %x = stablehlo.constant dense<1> : tensor<i32>
  "stablehlo.if"(%t) ({
    check.expect_eq_const %x, dense<1> : tensor<i32>
    stablehlo.return
  }, {
    stablehlo.return
  }) : (tensor<i1>) -> ()
  func.return
}
