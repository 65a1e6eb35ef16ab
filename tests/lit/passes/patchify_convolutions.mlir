// shlo-patchify-convolutions rewrites a convolution whose windows do not overlap (a vision
// transformer's patch embedding, a ResNet's strided 1x1) as reshapes, transposes and one
// dot_general (behind an optimization_barrier when its result is transposed to a channels-first
// output, not for a channels-last one), a wide one (256 input features or more) with
// overlapping windows and an output of at most 28x28 (a ResNet's later 3x3s) by im2col, and
// leaves the others alone.  The interpreter checks the same values before and after.
// RUN: shlo-opt %s --split-input-file --shlo-trim-window-tails --shlo-patchify-convolutions | filecheck %s
// RUN: shlo-opt %s --split-input-file --shlo-patchify-convolutions | filecheck %s --check-prefix=ALONE
// RUN: shlo-translate %s --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// RUN: shlo-opt %s --split-input-file --shlo-trim-window-tails --shlo-patchify-convolutions \
// RUN:   | shlo-translate --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// VALUES-NOT: error

// NCHW, 2x2 patches of a 4x5 image: the fifth column is in no window, so
// shlo-trim-window-tails slices it off first; without it the convolution is left alone.
// Output feature 0 sums each patch, feature 1 picks its top-left element.
// ALONE-LABEL: func.func @nchw_ragged
// ALONE: stablehlo.convolution
// CHECK-LABEL: func.func @nchw_ragged
// CHECK-NOT: stablehlo.convolution
// CHECK: stablehlo.slice {{.*}} [0:1, 0:1, 0:4, 0:4]
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
// CHECK-NOT: stablehlo.optimization_barrier
func.func @nhwc() {
  %iota = stablehlo.iota dim = 0 : tensor<72xf32>
  %x = stablehlo.reshape %iota : (tensor<72xf32>) -> tensor<2x6x2x3xf32>
  %one = stablehlo.constant dense<1.0> : tensor<3x2x3x1xf32>
  %two = stablehlo.constant dense<2.0> : tensor<3x2x3x1xf32>
  %k = stablehlo.concatenate %one, %two, dim = 3 : (tensor<3x2x3x1xf32>, tensor<3x2x3x1xf32>) -> tensor<3x2x3x2xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [3, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x6x2x3xf32>, tensor<3x2x3x2xf32>) -> tensor<2x2x1x2xf32>
  check.expect_almost_eq_const %r, dense<[[[[153.0, 306.0]], [[477.0, 954.0]]], [[[801.0, 1602.0]], [[1125.0, 2250.0]]]]> : tensor<2x2x1x2xf32>
  %t = func.call @nhwc_transposed(%x, %k) : (tensor<2x6x2x3xf32>, tensor<3x2x3x2xf32>) -> tensor<2x2x2x1xf32>
  check.expect_almost_eq_const %t, dense<[[[[153.0], [477.0]], [[306.0], [954.0]]], [[[801.0], [1125.0]], [[1602.0], [2250.0]]]]> : tensor<2x2x2x1xf32>
  return
}

// The same whose channels-last result goes on through a transpose: fenced.
// CHECK-LABEL: func.func @nhwc_transposed
// CHECK: %[[DOT:.*]] = stablehlo.dot_general {{.*}} -> tensor<4x2xf32>
// CHECK: stablehlo.optimization_barrier %[[DOT]]
// CHECK-LABEL: func.func @strided_pointwise
func.func @nhwc_transposed(%x: tensor<2x6x2x3xf32>, %k: tensor<3x2x3x2xf32>) -> tensor<2x2x2x1xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [3, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x6x2x3xf32>, tensor<3x2x3x2xf32>) -> tensor<2x2x1x2xf32>
  %t = stablehlo.transpose %r, dims = [0, 3, 1, 2] : (tensor<2x2x1x2xf32>) -> tensor<2x2x2x1xf32>
  return %t : tensor<2x2x2x1xf32>
}

func.func @main() {
  func.call @nhwc() : () -> ()
  return
}

// -----

// A 1x1 convolution with stride 2 (a ResNet's downsampling shortcut) on a 5x5 image reads rows
// and columns 0, 2 and 4: a strided slice, then a matmul over the two input features.
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

// Wide convolutions (256 input features or more) with overlapping windows and an output of at
// most 28x28 go through im2col: the zero-padded input sliced at each of the nine window
// offsets, concatenated along the features, then one dot_general.  NCHW, a 4x4 image of 256
// features padded by 1; small whole numbers (iota mod 5, mod 7) keep every sum exact.
// CHECK-LABEL: func.func @im2col_padded
// CHECK-NOT: stablehlo.convolution
// CHECK: stablehlo.pad {{.*}} low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0]
// CHECK-COUNT-9: stablehlo.slice {{.*}} -> tensor<1x4x4x256xf32>
// CHECK: stablehlo.concatenate {{.*}} dim = 3 {{.*}} -> tensor<1x4x4x2304xf32>
// CHECK: %[[DOT:.*]] = stablehlo.dot_general {{.*}} contracting_dims = [1] x [0] {{.*}} -> tensor<16x2xf32>
// CHECK: stablehlo.optimization_barrier %[[DOT]] : tensor<16x2xf32>
// CHECK-NOT: stablehlo.convolution
func.func @im2col_padded() {
  %iota = stablehlo.iota dim = 0 : tensor<4096xf32>
  %five = stablehlo.constant dense<5.0> : tensor<4096xf32>
  %xs = stablehlo.remainder %iota, %five : tensor<4096xf32>
  %x = stablehlo.reshape %xs : (tensor<4096xf32>) -> tensor<1x256x4x4xf32>
  %kiota = stablehlo.iota dim = 0 : tensor<4608xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<4608xf32>
  %ks = stablehlo.remainder %kiota, %seven : tensor<4608xf32>
  %k = stablehlo.reshape %ks : (tensor<4608xf32>) -> tensor<2x256x3x3xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x256x4x4xf32>, tensor<2x256x3x3xf32>) -> tensor<1x2x4x4xf32>
  check.expect_almost_eq_const %r, dense<[[[[6131.0, 9202.0, 9194.0, 6144.0], [9194.0, 13806.0, 13810.0, 9192.0], [9225.0, 13827.0, 13806.0, 9219.0], [6151.0, 9226.0, 9211.0, 6134.0]], [[6139.0, 9211.0, 9211.0, 6141.0], [9228.0, 13805.0, 13815.0, 9202.0], [9221.0, 13825.0, 13805.0, 9193.0], [6152.0, 9222.0, 9210.0, 6128.0]]]]> : tensor<1x2x4x4xf32>
  return
}

// -----

// NHWC with an HWIO kernel, two batches of 5x5x256, stride 2 and uneven padding (rows [0, 1],
// columns [1, 0]; no window reaches the padded row, so shlo-trim-window-tails drops it): each
// offset's slice steps by the stride.
// CHECK-LABEL: func.func @im2col_strided
// CHECK-NOT: stablehlo.convolution
// CHECK: stablehlo.pad {{.*}} low = [0, 0, 1, 0], high = [0, 0, 0, 0]
// CHECK: stablehlo.slice {{.*}} [0:2, 0:3:2, 0:3:2, 0:256]
// CHECK: stablehlo.slice {{.*}} [0:2, 2:5:2, 2:5:2, 0:256]
// CHECK: stablehlo.concatenate {{.*}} -> tensor<2x2x2x2304xf32>
// CHECK: stablehlo.dot_general {{.*}} -> tensor<8x2xf32>
// CHECK-NOT: stablehlo.optimization_barrier
// CHECK-LABEL: func.func @kept(
func.func @im2col_strided() {
  %iota = stablehlo.iota dim = 0 : tensor<12800xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<12800xf32>
  %xs = stablehlo.remainder %iota, %seven : tensor<12800xf32>
  %x = stablehlo.reshape %xs : (tensor<12800xf32>) -> tensor<2x5x5x256xf32>
  %kiota = stablehlo.iota dim = 0 : tensor<4608xf32>
  %kseven = stablehlo.constant dense<7.0> : tensor<4608xf32>
  %ks = stablehlo.remainder %kiota, %kseven : tensor<4608xf32>
  %k = stablehlo.reshape %ks : (tensor<4608xf32>) -> tensor<3x3x256x2xf32>
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x5x5x256xf32>, tensor<3x3x256x2xf32>) -> tensor<2x2x2x2xf32>
  check.expect_almost_eq_const %r, dense<[[[[13310.0, 14343.0], [17677.0, 22295.0]], [[14840.0, 11786.0], [21485.0, 19969.0]]], [[[13292.0, 14828.0], [21485.0, 21485.0]], [[13310.0, 14343.0], [17677.0, 22295.0]]]]> : tensor<2x2x2x2xf32>
  return
}

// -----

// Narrow convolutions with overlapping windows, where IREE's own convolution is faster,
// grouped convolutions, and wide ones with a larger output (29x29) stay convolutions.
// CHECK-COUNT-2: stablehlo.convolution
// CHECK-NOT: stablehlo.dot_general
// CHECK-LABEL: func.func @kept_large
// CHECK: stablehlo.convolution
// CHECK-NOT: stablehlo.dot_general
func.func @kept(%x: tensor<1x2x6x6xf32>, %k: tensor<2x2x3x3xf32>, %y: tensor<1x2x4x4xf32>, %g: tensor<2x1x2x2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>) {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x4x4xf32>
  %1 = stablehlo.convolution(%y, %g) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>
}
func.func @kept_large(%x: tensor<1x256x31x31xf32>, %k: tensor<2x256x3x3xf32>) -> tensor<1x2x29x29xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x256x31x31xf32>, tensor<2x256x3x3xf32>) -> tensor<1x2x29x29xf32>
  return %0 : tensor<1x2x29x29xf32>
}
func.func @main() {
  %x = stablehlo.constant dense<1.0> : tensor<1x2x6x6xf32>
  %k = stablehlo.constant dense<1.0> : tensor<2x2x3x3xf32>
  %y = stablehlo.constant dense<1.0> : tensor<1x2x4x4xf32>
  %g = stablehlo.constant dense<1.0> : tensor<2x1x2x2xf32>
  %r:2 = func.call @kept(%x, %k, %y, %g) : (tensor<1x2x6x6xf32>, tensor<2x2x3x3xf32>, tensor<1x2x4x4xf32>, tensor<2x1x2x2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x2x2xf32>)
  check.expect_almost_eq_const %r#0, dense<18.0> : tensor<1x2x4x4xf32>
  check.expect_almost_eq_const %r#1, dense<4.0> : tensor<1x2x2x2xf32>
  return
}
