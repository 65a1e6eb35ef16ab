// An entry function with dynamic parameters is refined to the --args' types first (Api.cpp's
// removeDynamism); --args that do not fit it fail the refinement, at the function.
// RUN: shlo-translate --interpret %s --args='[dense<[1.0, 2.0]> : tensor<2xf32>]' | filecheck %s
// RUN: not shlo-translate --interpret %s --args='[dense<[1, 2]> : tensor<2xi32>]' 2>&1 | filecheck %s --check-prefix=BAD
// CHECK: tensor<2xf32> {
// CHECK-NEXT: [2.000000e+00, 4.000000e+00]
// BAD: dynamic_entry.mlir:[[# @LINE + 1]]:1: error: Failed to refine dynamic shape in function: main
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
