// shlo-empty-contractions: a matmul over an empty dimension is zeros (IREE read uninitialized
// memory for it); a matmul over a non-empty one stays.
// RUN: shlo-opt %s --shlo-empty-contractions | filecheck %s

// CHECK-LABEL: func.func @empty
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<5x10xf32>
// CHECK-NEXT: return %[[Z]]
func.func @empty(%a: tensor<5x0xf32>, %b: tensor<0x10xf32>) -> tensor<5x10xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<5x0xf32>, tensor<0x10xf32>) -> tensor<5x10xf32>
  return %0 : tensor<5x10xf32>
}

// CHECK-LABEL: func.func @full
// CHECK-NEXT: stablehlo.dot_general
func.func @full(%a: tensor<5x2xi32>, %b: tensor<2x10xi32>) -> tensor<5x10xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<5x2xi32>, tensor<2x10xi32>) -> tensor<5x10xi32>
  return %0 : tensor<5x10xi32>
}
