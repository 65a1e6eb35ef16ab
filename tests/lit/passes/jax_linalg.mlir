// shlo-jax-linalg replaces each of jaxlib's CPU LAPACK calls with a private function that JAX
// writes from its portable algorithms at the call's types, returning what the LAPACK routine
// returns (getrf: the factors, 1-based pivots, info; potrf: the factor over the untouched
// other triangle, info).  jax_linalg_refused.mlir: the calls it refuses.
// RUN: shlo-opt %s --split-input-file --shlo-jax-linalg | filecheck %s
// RUN: shlo-opt %s --split-input-file --shlo-jax-linalg --inline --symbol-dce | shlo-translate --split-input-file --interpret | filecheck %s --check-prefix=INTERP

// CHECK-LABEL: func.func @main
// CHECK-NOT:   custom_call
// CHECK:       %[[R:.*]]:3 = call @__shlo_lapack_sgetrf_ffi_0_main(%{{.*}}) : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
// CHECK:       func.func private @__shlo_lapack_sgetrf_ffi_0_main
// INTERP:      tensor<i32> {0}
// INTERP:      tensor<i32> {0}
// INTERP-NOT:  error
func.func @main() -> tensor<i32> {
  %a = stablehlo.constant dense<[[2.0, 1.0, 1.0], [4.0, 3.0, 3.0], [8.0, 7.0, 9.0]]> : tensor<3x3xf32>
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[8.0, 7.0, 9.0], [0.25, -0.75, -1.25], [0.5, 0.666666687, -0.666666627]]> : tensor<3x3xf32>
  check.expect_eq_const %0#1, dense<[3, 3, 3]> : tensor<3xi32>
  check.expect_eq_const %0#2, dense<0> : tensor<i32>
  return %0#2 : tensor<i32>
}

// -----

// The upper triangle, which LAPACK leaves as it was, keeps the input's 7.0.
// CHECK-LABEL: func.func @main
// CHECK:       call @__shlo_lapack_dpotrf_ffi_0_main
func.func @main() -> tensor<i32> {
  %a = stablehlo.constant dense<[[4.0, 7.0], [2.0, 3.0]]> : tensor<2x2xf64>
  %0:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[2.0, 7.0], [1.0, 1.4142135623730951]]> : tensor<2x2xf64>
  check.expect_eq_const %0#1, dense<0> : tensor<i32>
  return %0#1 : tensor<i32>
}
