// shlo-split-weighted-reductions: a sum over several dimensions of a product with a broadcast
// tensor that varies along some of them sums over the others first (IREE took it for a
// contraction it could not compile: "'vector.contract' op invalid accumulator/result vector
// shape").  Other reductions stay as they are.
// RUN: shlo-opt %s --shlo-split-weighted-reductions | filecheck %s

// CHECK-LABEL: func.func @weighted
// CHECK: %[[M:.*]] = stablehlo.multiply
// CHECK: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[P:.*]] = stablehlo.reduce(%[[M]] init: %[[Z]]) applies stablehlo.add across dimensions = [0, 2] : (tensor<3x5x4xf32>, tensor<f32>) -> tensor<5xf32>
// CHECK: %[[R:.*]] = stablehlo.reduce(%[[P]] init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
// CHECK: return %[[R]]
func.func @weighted(%x: tensor<3x5x4xf32>, %w: tensor<5xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<5xf32>) -> tensor<3x5x4xf32>
  %m = stablehlo.multiply %x, %b : tensor<3x5x4xf32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<3x5x4xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// A weight that varies along every reduced dimension (a dot product), one reduced
// dimension, a weight of size 1 (constant along everything) and a maximum stay whole.
// CHECK-LABEL: func.func @whole
// CHECK-COUNT-4: stablehlo.reduce(
// CHECK-NOT: stablehlo.reduce(
func.func @whole(%x: tensor<3x5xf32>, %w: tensor<3x5xf32>, %v: tensor<5xf32>, %s: tensor<1xf32>) -> (tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<f32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %w, dims = [0, 1] : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %m = stablehlo.multiply %x, %b : tensor<3x5xf32>
  %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
  %c = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<5xf32>) -> tensor<3x5xf32>
  %n = stablehlo.multiply %x, %c : tensor<3x5xf32>
  %q = stablehlo.reduce(%n init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
  %d = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<1xf32>) -> tensor<3x5xf32>
  %o = stablehlo.multiply %x, %d : tensor<3x5xf32>
  %p = stablehlo.reduce(%o init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
  %t = stablehlo.reduce(%n init: %z) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<f32>
  return %r, %q, %p, %t : tensor<f32>, tensor<3xf32>, tensor<f32>, tensor<f32>
}
