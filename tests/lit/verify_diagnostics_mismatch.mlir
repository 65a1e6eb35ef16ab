// Mismatches are reported as the C++ verifier reports them, and the run fails.
// RUN: not shlo-opt %s --split-input-file --verify-diagnostics 2>&1 | filecheck %s
// RUN: not shlo-opt %s --split-input-file --verify-diagnostics=all 2>&1 | filecheck %s
// RUN: not shlo-opt %s -split-input-file -verify-diagnostics= 2>&1 | filecheck %s

// With =only-expected, a diagnostic no comment expects is no error; expected ones must appear.
// RUN: not shlo-opt %s --split-input-file --verify-diagnostics=only-expected 2>&1 | filecheck %s --check-prefix=ONLY
// ONLY-NOT: unexpected error
// ONLY: error: expected error "this is not the message" was not produced
// ONLY-NOT: unexpected error
// ONLY: error: expected remark "never emitted" was not produced

// Unexpected diagnostics are reported as they come, expected ones never seen at the end.
// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 6]]:8: error: unexpected error: number of output elements (3) doesn't match expected number of elements (2)
// CHECK-NEXT: %0 = stablehlo.reshape
// CHECK-NEXT: {{^ +}}^
// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "this is not the message" was not produced
func.func @wrong_text(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{this is not the message}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 2]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
func.func @wrong_kind(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-warning@+1 {{number of output elements}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 2]]:6: error: expected remark "never emitted" was not produced
func.func @missing() {
  // expected-remark@+1 {{never emitted}}
  return
}

// -----

// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "number of output elements (3) doesn't match" was not produced
func.func @wrong_line(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error@+2 {{number of output elements (3) doesn't match}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK: verify_diagnostics_mismatch.mlir:[[# @LINE + 2]]:6: error: expected error "output elements ({{.*}})" was not produced
func.func @regex_miss(%a: tensor<2xf32>) -> tensor<30xf32> {
  // expected-error-re@+1 {{output elements ({{[0-9]}})}}
  %0 = stablehlo.reshape %a : (tensor<2xf32>) -> tensor<30xf32>
  return %0 : tensor<30xf32>
}
