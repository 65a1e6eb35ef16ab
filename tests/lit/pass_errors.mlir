// Errors a pass emits are printed as mlir-opt prints them: those of a pass that reports and
// goes on (stablehlo-canonicalize-dynamism's custom_call pattern, whose shape refinements are
// invalid, emits an error and leaves the op) and none for a pass that fails without a word
// (stablehlo-refine-shapes on a module with no function).
// RUN: shlo-opt %s --verify-diagnostics --stablehlo-canonicalize-dynamism
// RUN: shlo-opt %s --stablehlo-canonicalize-dynamism 2>&1 >/dev/null | filecheck %s --check-prefix=GOESON
// RUN: shlo-opt %S/Inputs/no_function.mlir --verify-diagnostics --stablehlo-refine-shapes
// RUN: not shlo-opt %S/Inputs/no_function.mlir --no-reproducer --stablehlo-refine-shapes 2>&1 | filecheck %s --allow-empty --check-prefix=SILENT

// GOESON: pass_errors.mlir:[[# @LINE + 6]]:8: error: indices_of_shape_operands: must have i64 element type
// GOESON-NOT: error
// SILENT-NOT: error
func.func @bad_refinement(%arg0: tensor<4xf32>) -> tensor<1x2xf32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  // expected-error@+1{{indices_of_shape_operands: must have i64 element type}}
  %1 = stablehlo.custom_call @foo(%arg0, %0) {indices_of_shape_operands = dense<[1]> : tensor<1xi32>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}
