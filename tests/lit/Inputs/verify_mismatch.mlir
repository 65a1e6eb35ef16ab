// Used by translate/verify_diagnostics.mlir: a check fails where no comment expects it, and a comment
// expects a failure that does not happen.
// CHECK: verify_mismatch.mlir:[[# @LINE + 4]]:3: error: unexpected error: check.expect_eq_const failed in @wrong_sum
func.func @wrong_sum() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = stablehlo.add %0, %0 : tensor<3xi32>
  check.expect_eq_const %1, dense<[2, 4, 7]> : tensor<3xi32>
  func.return
}

// -----

// CHECK: verify_mismatch.mlir:[[# @LINE + 3]]:6: error: expected error "check.expect_eq_const failed" was not produced
func.func @right_sum() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  // expected-error @+1 {{check.expect_eq_const failed}}
  check.expect_eq_const %0, dense<[1, 2, 3]> : tensor<3xi32>
  func.return
}
