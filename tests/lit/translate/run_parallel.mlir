// interpreter.run_parallel and the stablehlo.custom_call @check.* forms.
// RUN: shlo-translate --interpret -split-input-file %s
// RUN: not shlo-translate --interpret %inputs/custom_call_check_fails.mlir 2>&1 | filecheck %s
// RUN: not shlo-translate --interpret %inputs/run_parallel_check_fails.mlir 2>&1 | filecheck %s --check-prefix=PARALLEL

// A check inside a program that run_parallel runs is evaluated in every process.
// PARALLEL: run_parallel_check_fails.mlir:5:3: error: check.expect_eq_const failed in @positive: Element values don't match: false (actual) vs true (expected) at index []; 1 of 1 elements differ (execution {{[12]}} of 2)

// CHECK: custom_call_check_fails.mlir:5:3: error: check.expect_eq failed in @main: Element values don't match: 3 (actual) vs 4 (expected) at index []

func.func @add_one(%x: tensor<i32>) -> tensor<i32> {
  %one = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.add %x, %one : tensor<i32>
  return %0 : tensor<i32>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i32>
  %b = stablehlo.constant dense<10> : tensor<i32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@add_one], [@add_one]]} : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  check.expect_eq_const %r#0, dense<2> : tensor<i32>
  check.expect_eq_const %r#1, dense<11> : tensor<i32>
  %two = stablehlo.constant dense<2> : tensor<i32>
  stablehlo.custom_call @check.expect_eq(%r#0, %two) : (tensor<i32>, tensor<i32>) -> ()
  func.return
}

