// shlo-barrier-reduced-batched-operands: a batched dot_general's operand that a reduction
// computes (rows over their sum) passes through an optimization_barrier; an operand taken as
// it is, and the operands of an unbatched dot_general, do not.
// RUN: shlo-opt %s --shlo-barrier-reduced-batched-operands | filecheck %s

// CHECK-LABEL: func.func @batched
// CHECK: %[[W:.*]] = stablehlo.divide %arg0
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[W]]
// CHECK: stablehlo.dot_general %[[B]], %arg1, batching_dims
func.func @batched(%x: tensor<2x6x6xf32>, %v: tensor<2x6x16xf32>) -> tensor<2x6x16xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
  %b = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x6xf32>
  %w = stablehlo.divide %x, %b : tensor<2x6x6xf32>
  %r = stablehlo.dot_general %w, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x6x6xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  return %r : tensor<2x6x16xf32>
}

// CHECK-LABEL: func.func @unbatched
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @unbatched(%x: tensor<6x6xf32>, %v: tensor<6x16xf32>) -> tensor<6x16xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<6x6xf32>, tensor<f32>) -> tensor<6xf32>
  %b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<6xf32>) -> tensor<6x6xf32>
  %w = stablehlo.divide %x, %b : tensor<6x6xf32>
  %r = stablehlo.dot_general %w, %v, contracting_dims = [1] x [0] : (tensor<6x6xf32>, tensor<6x16xf32>) -> tensor<6x16xf32>
  return %r : tensor<6x16xf32>
}

// CHECK-LABEL: func.func @plain
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @plain(%x: tensor<2x6x6xf32>, %v: tensor<2x6x16xf32>) -> tensor<2x6x16xf32> {
  %w = stablehlo.add %x, %x : tensor<2x6x6xf32>
  %r = stablehlo.dot_general %w, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x6x6xf32>, tensor<2x6x16xf32>) -> tensor<2x6x16xf32>
  return %r : tensor<2x6x16xf32>
}
