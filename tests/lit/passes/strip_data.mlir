// RUN: shlo-opt %s --shlo-strip-data | filecheck %s
// RUN: shlo-opt %s --shlo-strip-data=max-elements=2 | filecheck %s --check-prefix=TIGHT
// RUN: shlo-opt %s --shlo-strip-data | shlo-opt | filecheck %s --check-prefix=REPARSE
// RUN: not shlo-opt %s --shlo-strip-data=max-elements=-1 2>&1 | filecheck %s --check-prefix=NEGATIVE

// Large constants become zero splats; small ones and splats stay; resource blobs go with them.
// CHECK-LABEL: func.func @weights
// CHECK:         stablehlo.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK:         stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK:         stablehlo.constant dense<0> : tensor<20xi64>
// CHECK:         stablehlo.constant dense<5.000000e-01> : tensor<64xf32>
// CHECK-NOT:   dialect_resources
// TIGHT:         stablehlo.constant dense<0> : tensor<3xi32>
// REPARSE: stablehlo.constant dense<0.000000e+00> : tensor<4x8xf32>
// NEGATIVE: error: shlo-strip-data: max-elements must be 0 or more, not -1
func.func @weights() -> (tensor<4x8xf32>, tensor<3xi32>, tensor<20xi64>, tensor<64xf32>) {
  %0 = stablehlo.constant dense_resource<blob> : tensor<4x8xf32>
  %1 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = stablehlo.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]> : tensor<20xi64>
  %3 = stablehlo.constant dense<0.5> : tensor<64xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<3xi32>, tensor<20xi64>, tensor<64xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F0000803F"
    }
  }
#-}

// Complex constants cannot be read from Python (the bindings raise): they are left as they are.
// RUN: shlo-opt %inputs/complex_result.mlir --shlo-strip-data=max-elements=0 | filecheck %s --check-prefix=COMPLEX
// COMPLEX: stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,4.000000e+00)]> : tensor<2xcomplex<f32>>
