// RUN: shlo-translate %s --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>, dense<[3.0, -4.0]> : tensor<2xf32>]' --interpreter-print-dense | filecheck %s
// RUN: not shlo-translate %s --interpret --args='[dense<[1.0, 2.0]> : tensor<2xf32>]' 2>&1 | filecheck %s --check-prefix=COUNT
// RUN: not shlo-translate %s --interpret --args='[dense<[1, 2]> : tensor<2xi32>, dense<[3.0, 4.0]> : tensor<2xf32>]' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not shlo-translate %s --interpret --args='[bogus]' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not shlo-translate %s --interpret --args='dense<1.0> : tensor<2xf32>' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not shlo-translate %s --interpret --args='[1.0 : f32]' 2>&1 | filecheck %s --check-prefix=ELEMENT
// RUN: not shlo-translate %s --interpret --args= 2>&1 | filecheck %s --check-prefix=NONE
// RUN: shlo-translate %inputs/complex_result.mlir --interpret | filecheck %s --check-prefix=COMPLEX
// RUN: shlo-translate %inputs/complex_result.mlir --interpret --interpreter-print-dense | filecheck %s --check-prefix=COMPLEX-DENSE

// CHECK: dense<[3.000000e+00, -8.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: dense<[-2.000000e+00, 6.000000e+00]> : tensor<2xf32>
// The --args grammar and the entry signature check, in StablehloTranslateMain.cpp's and
// Api.cpp's words; a signature mismatch is an error at the entry function.
// COUNT: interpret.mlir:[[# @LINE + 9]]:1: error: incorrect number of arguments specified, provided 1 inputs but function expected 2
// TYPE: interpret.mlir:[[# @LINE + 8]]:1: error: invalid input argument type at index 0, input type was tensor<2xi32> but entry function expected tensor<2xf32>
// SYNTAX: shlo-translate: expectected array attribute string for args, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// ELEMENT: shlo-translate: expected dense elements attribute for args elements, i.e. --args=[dense<1> : tensor<2xi32>, ...]
// NONE: error: incorrect number of arguments specified, provided 0 inputs but function expected 2
// COMPLEX: tensor<2xcomplex<f32>> {
// COMPLEX-NEXT{LITERAL}: [[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]
// COMPLEX-NEXT: }
// COMPLEX-DENSE: dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = stablehlo.multiply %a, %b : tensor<2xf32>
  %1 = stablehlo.subtract %a, %b : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
