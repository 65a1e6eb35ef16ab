// shlo-patchify-convolutions rewrites a convolution whose windows do not overlap (a vision
// transformer's patch embedding, a ResNet's strided 1x1) as reshapes, transposes and one
// dot_general behind an optimization_barrier, and leaves the others alone.  The interpreter
// checks the same values before and after.
// RUN: shlo-opt %s --split-input-file --shlo-patchify-convolutions | filecheck %s
// RUN: shlo-translate %s --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// RUN: shlo-opt %s --split-input-file --shlo-patchify-convolutions \
// RUN:   | shlo-translate --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// VALUES-NOT: error

// NCHW, 2x2 patches of a 4x5 image: the fifth column is in no window, so it is sliced off.
// Output feature 0 sums each patch, feature 1 picks its top-left element.
// CHECK-LABEL: func.func @nchw_ragged
// CHECK-NOT: stablehlo.convolution
// CHECK: stablehlo.slice {{.*}} [0:1, 0:4, 0:4, 0:1]
// CHECK: %[[DOT:.*]] = stablehlo.dot_general {{.*}} contracting_dims = [1] x [0] {{.*}} -> tensor<4x2xf32>
// CHECK: stablehlo.optimization_barrier %[[DOT]] : tensor<4x2xf32>
// CHECK-NOT: stablehlo.convolution
func.func @nchw_ragged() {
  %iota = stablehlo.iota dim = 0 : tensor<20xf32>
  %x = stablehlo.reshape %iota : (tensor<20xf32>) -> tensor<1x1x4x5xf32>
  %k = stablehlo.constant dense<[[[[1.0, 1.0], [1.0, 1.0]]], [[[1.0, 0.0], [0.0, 0.0]]]]> : tensor<2x1x2x2xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x4x5xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  check.expect_almost_eq_const %r, dense<[[[[12.0, 20.0], [52.0, 60.0]], [[0.0, 2.0], [10.0, 12.0]]]]> : tensor<1x2x2x2xf32>
  return
}

// -----

// NHWC with an HWIO kernel, two batches, three input features, 3x2 patches.
// CHECK-LABEL: func.func @nhwc
// CHECK-NOT: stablehlo.convolution
// CHECK: stablehlo.dot_general {{.*}} -> tensor<4x2xf32>
func.func @nhwc() {
  %iota = stablehlo.iota dim = 0 : tensor<72xf32>
  %x = stablehlo.reshape %iota : (tensor<72xf32>) -> tensor<2x6x2x3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<3x2x3x1xf32>
  %two = stablehlo.constant dense<2.0> : tensor<3x2x3x1xf32>
  %k = stablehlo.concatenate %one, %two, dim = 3 : (tensor<3x2x3x1xf32>, tensor<3x2x3x1xf32>) -> tensor<3x2x3x2xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [3, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x6x2x3xf32>, tensor<3x2x3x2xf32>) -> tensor<2x2x1x2xf32>
  check.expect_almost_eq_const %r, dense<[[[[153.0, 306.0]], [[477.0, 954.0]]], [[[801.0, 1602.0]], [[1125.0, 2250.0]]]]> : tensor<2x2x1x2xf32>
  return
}

// -----

// A 1x1 convolution with stride 2 (a ResNet's downsampling shortcut) on a 5x5 image reads rows
// and columns 0, 2 and 4: a strided slice, then a matmul over the two input features.
// CHECK-LABEL: func.func @strided_pointwise
// CHECK-NOT: stablehlo.convolution
// CHECK: stablehlo.slice {{.*}} [0:1, 0:5:2, 0:5:2, 0:2]
// CHECK: stablehlo.dot_general {{.*}} -> tensor<9x1xf32>
func.func @strided_pointwise() {
  %iota = stablehlo.iota dim = 0 : tensor<50xf32>
  %x = stablehlo.reshape %iota : (tensor<50xf32>) -> tensor<1x2x5x5xf32>
  %k = stablehlo.constant dense<[[[[1.0]], [[10.0]]]]> : tensor<1x2x1x1xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x5x5xf32>, tensor<1x2x1x1xf32>) -> tensor<1x1x3x3xf32>
  check.expect_almost_eq_const %r, dense<[[[[250.0, 272.0, 294.0], [360.0, 382.0, 404.0], [470.0, 492.0, 514.0]]]]> : tensor<1x1x3x3xf32>
  return
}

// -----

// Overlapping windows (stride 1), padding and grouped convolutions stay convolutions.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: stablehlo.convolution
// CHECK-NOT: stablehlo.dot_general
func.func @kept(%x: tensor<1x2x4x4xf32>, %k: tensor<2x2x2x2xf32>, %g: tensor<2x1x2x2xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>) {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x3x3xf32>
  %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x3x3xf32>
  %2 = stablehlo.convolution(%x, %g) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %0, %1, %2 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>
}
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<1x2x4x4xf32>
  %k = stablehlo.constant dense<1.0> : tensor<2x2x2x2xf32>
  %g = stablehlo.constant dense<1.0> : tensor<2x1x2x2xf32>
  %r:3 = func.call @kept(%x, %k, %g) : (tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>, tensor<2x1x2x2xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>)
  check.expect_almost_eq_const %r#0, dense<8.0> : tensor<1x2x3x3xf32>
  check.expect_almost_eq_const %r#2, dense<4.0> : tensor<1x2x2x2xf32>
  return
}
