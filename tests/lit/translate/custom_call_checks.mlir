// The custom-call checks StablehloTranslateMain.cpp's fallback knows, past the ones that pass:
// expect_close on a type without ULPs (upstream: report_fatal_error, shlo: an error at the op),
// and a custom call it does not know.
// RUN: not shlo-translate --interpret --split-input-file %s 2>&1 | filecheck %s

// CHECK: custom_call_checks.mlir:[[# @LINE + 4]]:3: error: check.expect_close failed in @main: Unsupported element type for check.expect_close: i32
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  stablehlo.custom_call @check.expect_close(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> ()
  func.return
}

// -----

// CHECK: custom_call_checks.mlir:[[# @LINE + 3]]:3: error: {{.*}}Unsupported custom call: @check.something
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  stablehlo.custom_call @check.something(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> ()
  func.return
}
