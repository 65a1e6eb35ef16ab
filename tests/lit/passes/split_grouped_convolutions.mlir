// shlo-split-grouped-convolutions: a convolution with 2 groups of 2 input channels becomes two
// convolutions on slices and a concatenate; the reference interpreter gives the same numbers.
// RUN: shlo-opt %s --shlo-split-grouped-convolutions | filecheck %s
// RUN: shlo-translate --interpret %s > %t.grouped
// RUN: shlo-opt %s --shlo-split-grouped-convolutions | shlo-translate --interpret > %t.split
// RUN: diff %t.grouped %t.split

// CHECK-LABEL: func.func @main
// CHECK: %[[X0:.*]] = stablehlo.slice %{{.*}} [0:1, 0:2, 0:4, 0:4]
// CHECK: %[[W0:.*]] = stablehlo.slice %{{.*}} [0:4, 0:2, 0:3, 0:3]
// CHECK: %[[C0:.*]] = stablehlo.convolution(%[[X0]], %[[W0]]) {{.*}} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
// CHECK: %[[X1:.*]] = stablehlo.slice %{{.*}} [0:1, 2:4, 0:4, 0:4]
// CHECK: %[[W1:.*]] = stablehlo.slice %{{.*}} [4:8, 0:2, 0:3, 0:3]
// CHECK: %[[C1:.*]] = stablehlo.convolution(%[[X1]], %[[W1]])
// CHECK: stablehlo.concatenate %[[C0]], %[[C1]], dim = 1 : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x8x2x2xf32>
func.func @main() -> tensor<1x8x2x2xf32> {
  %x = stablehlo.iota dim = 1 : tensor<1x4x4x4xf32>
  %w = stablehlo.iota dim = 0 : tensor<8x2x3x3xf32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x2x2xf32>
  return %0 : tensor<1x8x2x2xf32>
}

// A depthwise convolution (one input channel per group) is left as it is.
// RUN: shlo-opt %s --split-input-file --shlo-split-grouped-convolutions | filecheck %s --check-prefix=DEPTHWISE
// DEPTHWISE-LABEL: func.func @depthwise
// DEPTHWISE: feature_group_count = 4
// DEPTHWISE-NOT: stablehlo.slice
// -----
func.func @depthwise(%x: tensor<1x4x4x4xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}
