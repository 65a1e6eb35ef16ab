// RUN: shlo-translate %s --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>, dense<[3.0, -4.0]> : tensor<2xf32>]' --interpreter-print-dense | filecheck %s
// RUN: not shlo-translate %s --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>]' 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: not shlo-translate %s --interpret --args='[dense<[1, 2]> : tensor<2xi32>, dense<[3.0, 4.0]> : tensor<2xf32>]' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not shlo-translate %s --interpret --args='[bogus]' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: shlo-translate %inputs/complex_result.mlir --interpret | filecheck %s --check-prefix=COMPLEX
// RUN: shlo-translate %inputs/complex_result.mlir --interpret --interpreter-print-dense | filecheck %s --check-prefix=COMPLEX-DENSE

// CHECK: dense<[3.000000e+00, -8.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: dense<[-2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// COUNT: shlo-translate: @main takes 2 arguments, --args gave 1
// TYPE: shlo-translate: argument 0: expected tensor<2xf32>, got tensor<2xi32>
// SYNTAX: shlo-translate: --args: argument 0 'bogus' is not an attribute
// COMPLEX: tensor<2xcomplex<f32>> {
// COMPLEX-NEXT{LITERAL}: [[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]
// COMPLEX-NEXT: }
// COMPLEX-DENSE: dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = stablehlo.multiply %a, %b : tensor<2xf32>
  %1 = stablehlo.subtract %a, %b : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
