// shlo-split-long-reductions: a reduction of more than 65,535 elements per result (IREE's
// Vulkan target summed only the first 65,535) moves its dimensions last, pads them with the
// init value to a multiple of 4096 and reduces the chunks first; the last result goes through
// an optimization barrier.  Short reductions and reductions of several tensors stay.
// RUN: shlo-opt %s --shlo-split-long-reductions | filecheck %s

// CHECK-LABEL: func.func @sum
// CHECK: %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<300x2x300xf32>) -> tensor<2x300x300xf32>
// CHECK: %[[R:.*]] = stablehlo.reshape %[[T]] : (tensor<2x300x300xf32>) -> tensor<2x90000xf32>
// CHECK: %[[P:.*]] = stablehlo.pad %[[R]], %[[INIT:.*]], low = [0, 0], high = [0, 112], interior = [0, 0] : (tensor<2x90000xf32>, tensor<f32>) -> tensor<2x90112xf32>
// CHECK: %[[C:.*]] = stablehlo.reshape %[[P]] : (tensor<2x90112xf32>) -> tensor<2x22x4096xf32>
// CHECK: %[[S:.*]] = stablehlo.reduce(%[[C]] init: %[[INIT]]) applies stablehlo.add across dimensions = [2] : (tensor<2x22x4096xf32>, tensor<f32>) -> tensor<2x22xf32>
// CHECK: %[[F:.*]] = stablehlo.reduce(%[[S]] init: %[[INIT]]) applies stablehlo.add across dimensions = [1] : (tensor<2x22xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[F]] : tensor<2xf32>
// CHECK: return %[[B]]
func.func @sum(%x: tensor<300x2x300xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0, 2] : (tensor<300x2x300xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @short
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.maximum across dimensions = [1]
// CHECK-NEXT: return
func.func @short(%x: tensor<2x65535xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<2x65535xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A dot_general summing 70,000 products per result: chunks become a batch dimension.
// CHECK-LABEL: func.func @dot
// CHECK: %[[L:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x3x73728xf32>) -> tensor<2x3x18x4096xf32>
// CHECK: %[[LT:.*]] = stablehlo.transpose %[[L]], dims = [0, 2, 1, 3] : (tensor<2x3x18x4096xf32>) -> tensor<2x18x3x4096xf32>
// CHECK: %[[P:.*]] = stablehlo.dot_general %[[LT]], %{{.*}}, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x18x3x4096xf32>, tensor<2x18x5x4096xf32>) -> tensor<2x18x3x5xf32>
// CHECK: %[[PT:.*]] = stablehlo.transpose %[[P]], dims = [0, 2, 3, 1] : (tensor<2x18x3x5xf32>) -> tensor<2x3x5x18xf32>
// CHECK: %[[S:.*]] = stablehlo.reduce(%[[PT]] init: %{{.*}}) applies stablehlo.add across dimensions = [3] : (tensor<2x3x5x18xf32>, tensor<f32>) -> tensor<2x3x5xf32>
// CHECK: return %[[S]]
func.func @dot(%a: tensor<2x3x70000xf32>, %b: tensor<2x70000x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x70000xf32>, tensor<2x70000x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}
