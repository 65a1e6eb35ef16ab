// Results print in the interpreter's layout, as stablehlo-translate prints them, or as
// elements attributes with --interpreter-print-dense; -o writes them to a file.
// RUN: shlo-translate --interpret -split-input-file %s | filecheck %s
// RUN: shlo-translate --interpret -split-input-file --interpreter-print-dense %s | filecheck %s --check-prefix=DENSE
// RUN: shlo-translate --interpret -split-input-file %s -o %t && filecheck %s < %t

func.func @shapes() -> (tensor<3xi32>, tensor<2xi1>, tensor<f32>, tensor<2x2xf32>, tensor<2x1x2xi8>, tensor<2x3xf32>) {
  // CHECK:      tensor<3xi32> {
  // CHECK-NEXT:   [1, -2, 3]
  // CHECK-NEXT: }
  // DENSE:      dense<[1, -2, 3]> : tensor<3xi32>
  %ints = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi32>
  // CHECK-NEXT: tensor<2xi1> {
  // CHECK-NEXT:   [true, false]
  // CHECK-NEXT: }
  // DENSE-NEXT: dense<[true, false]> : tensor<2xi1>
  %bools = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  // CHECK-NEXT: tensor<f32> {2.500000e+00}
  // DENSE-NEXT: dense<2.500000e+00> : tensor<f32>
  %scalar = stablehlo.constant dense<2.5> : tensor<f32>
  // CHECK-NEXT: tensor<2x2xf32> {
  // CHECK-NEXT:   [
  // CHECK-NEXT:     [1.000000e+00, 2.000000e+00],
  // CHECK-NEXT:     [3.000000e+00, 4.000000e+00]
  // CHECK-NEXT:   ]
  // CHECK-NEXT: }
  // DENSE-NEXT{LITERAL}: dense<[[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  %matrix = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  // CHECK-NEXT: tensor<2x1x2xi8> {
  // CHECK-NEXT:   [
  // CHECK-NEXT:     [
  // CHECK-NEXT:       [5, 6]
  // CHECK-NEXT:     ],
  // CHECK-NEXT:     [
  // CHECK-NEXT:       [7, 8]
  // CHECK-NEXT:     ]
  // CHECK-NEXT:   ]
  // CHECK-NEXT: }
  %cube = stablehlo.constant dense<[[[5, 6]], [[7, 8]]]> : tensor<2x1x2xi8>
  // A splat value is printed element by element.
  // CHECK-NEXT: tensor<2x3xf32> {
  // CHECK-NEXT:   [
  // CHECK-NEXT:     [0.000000e+00, 0.000000e+00, 0.000000e+00],
  // CHECK-NEXT:     [0.000000e+00, 0.000000e+00, 0.000000e+00]
  // CHECK-NEXT:   ]
  // CHECK-NEXT: }
  // DENSE: dense<0.000000e+00> : tensor<2x3xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<2x3xf32>
  func.return %ints, %bools, %scalar, %matrix, %cube, %zeros : tensor<3xi32>, tensor<2xi1>, tensor<f32>, tensor<2x2xf32>, tensor<2x1x2xi8>, tensor<2x3xf32>
}

// -----

func.func @empty() -> (tensor<0xi8>, tensor<0x2xi8>, tensor<2x0xi8>) {
  // CHECK:      tensor<0xi8> {
  // CHECK-NEXT:   []
  // CHECK-NEXT: }
  // DENSE:      dense<> : tensor<0xi8>
  %a = stablehlo.constant dense<> : tensor<0xi8>
  // CHECK-NEXT: tensor<0x2xi8> {
  // CHECK-NEXT:   []
  // CHECK-NEXT: }
  %b = stablehlo.constant dense<> : tensor<0x2xi8>
  // CHECK-NEXT: tensor<2x0xi8> {
  // CHECK-NEXT:   [
  // CHECK-NEXT:     [],
  // CHECK-NEXT:     []
  // CHECK-NEXT:   ]
  // CHECK-NEXT: }
  %c = stablehlo.constant dense<> : tensor<2x0xi8>
  func.return %a, %b, %c : tensor<0xi8>, tensor<0x2xi8>, tensor<2x0xi8>
}
