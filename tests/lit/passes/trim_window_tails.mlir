// shlo-trim-window-tails: the tail of a window op's padded input that no strided window
// reaches comes off, high padding first, then the input's last elements (IREE failed to
// compile such ops where an output dimension has size 1).  Exact windows stay as they are.
// RUN: shlo-opt %s --shlo-trim-window-tails | filecheck %s

// H: 1 + 3 + 1 rows, one window of 3: the high padding and one row go.  W: 7 columns, three
// windows of 2: the last column goes.
// CHECK-LABEL: func.func @pool
// CHECK: %[[S:.*]] = stablehlo.slice %arg0 [0:1, 0:2, 0:2, 0:6]
// CHECK: "stablehlo.reduce_window"(%[[S]], %{{.*}}) <{padding = dense<{{\[}}[0, 0], [0, 0], [1, 0], [0, 0]]> : tensor<4x2xi64>
// CHECK: }) : (tensor<1x2x2x6xf32>, tensor<f32>) -> tensor<1x2x1x3xf32>
func.func @pool(%x: tensor<1x2x3x7xf32>) -> tensor<1x2x1x3xf32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %init) <{padding = dense<[[0, 0], [0, 0], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 3, 2>, window_strides = array<i64: 1, 1, 3, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<1x2x3x7xf32>, tensor<f32>) -> tensor<1x2x1x3xf32>
  return %0 : tensor<1x2x1x3xf32>
}

// CHECK-LABEL: func.func @conv
// CHECK: %[[S:.*]] = stablehlo.slice %arg0 [0:1, 0:2, 0:2, 0:5]
// CHECK: stablehlo.convolution(%[[S]], %arg1) {{.*}} pad = {{\[}}[1, 0], [1, 0]]
// CHECK-SAME: (tensor<1x2x2x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x1x2xf32>
func.func @conv(%x: tensor<1x2x3x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x1x2xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [3, 3], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x1x2xf32>
  return %0 : tensor<1x4x1x2xf32>
}

// A dilated input keeps its elements (only its high padding could go); windows that reach
// the end leave the op as it is.
// CHECK-LABEL: func.func @dilated
// CHECK-NOT: stablehlo.slice
// CHECK: lhs_dilate = [2]
func.func @dilated(%x: tensor<1x1x3xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x1xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [4], lhs_dilate = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x3xf32>, tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

// CHECK-LABEL: func.func @whole
// CHECK-NOT: stablehlo.slice
// CHECK: stablehlo.convolution(%arg0, %arg1)
func.func @whole(%x: tensor<1x2x4x4xf32>, %w: tensor<4x2x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<4x2x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}
