// shlo-channels-last gives each convolution a channels-last result and moves the transpose back
// to channels-first below the ops that allow it (elementwise ops with broadcast or splat
// operands, pooling windows, reductions, convolutions) until it cancels or reaches a result.
// The interpreter checks the same values before and after (computed by PyTorch: a 3x3
// convolution, batch norm, relu, a padded max pool, a 1x1 convolution, a residual add and a
// spatial sum).
// RUN: shlo-opt %s --split-input-file --shlo-channels-last | filecheck %s
// RUN: shlo-translate %s --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// RUN: shlo-opt %s --split-input-file --shlo-channels-last \
// RUN:   | shlo-translate --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// VALUES-NOT: error

// CHECK-LABEL: func.func @block
// CHECK: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f]
// CHECK-SAME: -> tensor<1x6x6x3xf32>
// CHECK: stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<3xf32>) -> tensor<1x6x6x3xf32>
// CHECK: stablehlo.subtract {{.*}} : tensor<1x6x6x3xf32>
// CHECK: stablehlo.maximum {{.*}} : tensor<1x6x6x3xf32>
// CHECK: "stablehlo.reduce_window"
// CHECK-SAME{LITERAL}: padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]>
// CHECK-SAME: window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>
// CHECK: -> tensor<1x3x3x3xf32>
// CHECK: stablehlo.convolution({{.*}}) dim_numbers = [b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f]
// CHECK: %[[SUM:.*]] = stablehlo.add {{.*}} : tensor<1x3x3x3xf32>
// CHECK: %[[BACK:.*]] = stablehlo.transpose %[[SUM]], dims = [0, 3, 1, 2] : (tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
// CHECK-NOT: stablehlo.transpose
// CHECK: stablehlo.reduce(%[[SUM]] init: {{.*}}) applies stablehlo.add across dimensions = [1, 2] : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x3xf32>
// CHECK-NOT: stablehlo.transpose
// CHECK: return %[[BACK]]
func.func @block(%x: tensor<1x2x6x6xf32>, %k1: tensor<3x2x3x3xf32>, %mean: tensor<3xf32>, %scale: tensor<3xf32>, %k2: tensor<3x3x1x1xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3xf32>) {
  %0 = stablehlo.convolution(%x, %k1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x6x6xf32>
  %m = stablehlo.broadcast_in_dim %mean, dims = [1] : (tensor<3xf32>) -> tensor<1x3x6x6xf32>
  %s = stablehlo.broadcast_in_dim %scale, dims = [1] : (tensor<3xf32>) -> tensor<1x3x6x6xf32>
  %1 = stablehlo.subtract %0, %m : tensor<1x3x6x6xf32>
  %2 = stablehlo.multiply %1, %s : tensor<1x3x6x6xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<1x3x6x6xf32>
  %3 = stablehlo.maximum %2, %zero : tensor<1x3x6x6xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %4 = "stablehlo.reduce_window"(%3, %low) <{padding = dense<[[0, 0], [0, 0], [0, 1], [0, 1]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<1x3x6x6xf32>, tensor<f32>) -> tensor<1x3x3x3xf32>
  %5 = stablehlo.convolution(%4, %k2) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x3xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x3x3xf32>
  %6 = stablehlo.add %5, %4 : tensor<1x3x3x3xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %7 = stablehlo.reduce(%6 init: %init) applies stablehlo.add across dimensions = [2, 3] : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  return %6, %7 : tensor<1x3x3x3xf32>, tensor<1x3xf32>
}

func.func @main() {
  %i = stablehlo.iota dim = 0 : tensor<72xf32>
  %seven = stablehlo.constant dense<7.0> : tensor<72xf32>
  %xs = stablehlo.remainder %i, %seven : tensor<72xf32>
  %x = stablehlo.reshape %xs : (tensor<72xf32>) -> tensor<1x2x6x6xf32>
  %j = stablehlo.iota dim = 0 : tensor<54xf32>
  %three = stablehlo.constant dense<3.0> : tensor<54xf32>
  %one = stablehlo.constant dense<1.0> : tensor<54xf32>
  %jm = stablehlo.remainder %j, %three : tensor<54xf32>
  %js = stablehlo.subtract %jm, %one : tensor<54xf32>
  %k1 = stablehlo.reshape %js : (tensor<54xf32>) -> tensor<3x2x3x3xf32>
  %mean = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %scale = stablehlo.constant dense<[2.0, 1.0, 0.5]> : tensor<3xf32>
  %k2 = stablehlo.constant dense<[[[[-1.0]], [[0.0]], [[1.0]]], [[[2.0]], [[-1.0]], [[0.0]]], [[[1.0]], [[2.0]], [[-1.0]]]]> : tensor<3x3x1x1xf32>
  %r:2 = func.call @block(%x, %k1, %mean, %scale, %k2) : (tensor<1x2x6x6xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3x1x1xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3xf32>)
  check.expect_almost_eq_const %r#0, dense<[[[[3.5, 4.5, 4.5], [11.5, 1.0, 4.5], [12.0, 0.0, 0.0]], [[36.0, 44.0, 44.0], [100.0, 16.0, 44.0], [104.0, 0.0, 0.0]], [[34.0, 42.0, 42.0], [98.0, 14.0, 42.0], [102.0, 0.0, 0.0]]]]> : tensor<1x3x3x3xf32>
  check.expect_almost_eq_const %r#1, dense<[[41.5, 388.0, 374.0]]> : tensor<1x3xf32>
  return
}

// -----

// Nothing moves in a module without a convolution.
// CHECK-LABEL: func.func @left_alone
// CHECK: stablehlo.transpose %arg0, dims = [0, 3, 1, 2]
// CHECK: stablehlo.transpose %arg1, dims = [0, 3, 1, 2]
// CHECK: stablehlo.add
func.func @left_alone(%x: tensor<1x4x4x2xf32>, %y: tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32> {
  %0 = stablehlo.transpose %x, dims = [0, 3, 1, 2] : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
  %1 = stablehlo.transpose %y, dims = [0, 3, 1, 2] : (tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
  %2 = stablehlo.add %0, %1 : tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

func.func @main() {
  %x = stablehlo.iota dim = 3 : tensor<1x4x4x2xf32>
  %y = stablehlo.iota dim = 2 : tensor<1x4x4x2xf32>
  %r = func.call @left_alone(%x, %y) : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x2x4x4xf32>
  %row = stablehlo.slice %r [0:1, 0:2, 1:2, 0:4] : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x4xf32>
  check.expect_almost_eq_const %row, dense<[[[[0.0, 1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0, 4.0]]]]> : tensor<1x2x1x4xf32>
  return
}

// -----

// Nor through an op with an operand in the other layout that is no broadcast or splat.
// CHECK-LABEL: func.func @mixed
// CHECK: stablehlo.convolution
// CHECK: %[[BACK:.*]] = stablehlo.transpose {{.*}} dims = [0, 3, 1, 2]
// CHECK: stablehlo.add %[[BACK]], %arg2 : tensor<1x2x4x4xf32>
func.func @mixed(%x: tensor<1x2x4x4xf32>, %k: tensor<2x2x1x1xf32>, %y: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %1 = stablehlo.add %0, %y : tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

func.func @main() {
  %x = stablehlo.iota dim = 3 : tensor<1x2x4x4xf32>
  %k = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[0.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %y = stablehlo.iota dim = 1 : tensor<1x2x4x4xf32>
  %r = func.call @mixed(%x, %k, %y) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %row = stablehlo.slice %r [0:1, 0:2, 0:1, 0:4] : (tensor<1x2x4x4xf32>) -> tensor<1x2x1x4xf32>
  check.expect_almost_eq_const %row, dense<[[[[0.0, 3.0, 6.0, 9.0]], [[1.0, 0.0, -1.0, -2.0]]]]> : tensor<1x2x1x4xf32>
  return
}

// -----

// Concatenations along the features, pads and slices move the transposes on too.
// CHECK-LABEL: func.func @joined
// CHECK: stablehlo.concatenate {{.*}}, dim = 3 : (tensor<1x4x4x2xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x3xf32>
// CHECK: stablehlo.pad {{.*}}, low = [0, 1, 0, 0], high = [0, 0, 1, 0], interior = [0, 0, 0, 0] : (tensor<1x4x4x3xf32>, tensor<f32>) -> tensor<1x5x5x3xf32>
// CHECK: stablehlo.slice {{.*}} [0:1, 1:5:2, 0:5:2, 0:3] : (tensor<1x5x5x3xf32>) -> tensor<1x2x3x3xf32>
// CHECK: %[[BACK:.*]] = stablehlo.transpose {{.*}}, dims = [0, 3, 1, 2] : (tensor<1x2x3x3xf32>) -> tensor<1x3x2x3xf32>
// CHECK-NEXT: return %[[BACK]]
func.func @joined(%x: tensor<1x2x4x4xf32>, %ka: tensor<2x2x1x1xf32>, %kb: tensor<1x2x3x3xf32>) -> tensor<1x3x2x3xf32> {
  %a = stablehlo.convolution(%x, %ka) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b = stablehlo.convolution(%x, %kb) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<1x2x3x3xf32>) -> tensor<1x1x4x4xf32>
  %c = stablehlo.concatenate %a, %b, dim = 1 : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x3x4x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.pad %c, %zero, low = [0, 0, 1, 0], high = [0, 0, 0, 1], interior = [0, 0, 0, 0] : (tensor<1x3x4x4xf32>, tensor<f32>) -> tensor<1x3x5x5xf32>
  %s = stablehlo.slice %p [0:1, 0:3, 1:5:2, 0:5:2] : (tensor<1x3x5x5xf32>) -> tensor<1x3x2x3xf32>
  return %s : tensor<1x3x2x3xf32>
}

func.func @main() {
  %i = stablehlo.iota dim = 0 : tensor<32xf32>
  %five = stablehlo.constant dense<5.0> : tensor<32xf32>
  %xs = stablehlo.remainder %i, %five : tensor<32xf32>
  %x = stablehlo.reshape %xs : (tensor<32xf32>) -> tensor<1x2x4x4xf32>
  %ka = stablehlo.constant dense<[[[[1.0]], [[2.0]]], [[[0.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %j = stablehlo.iota dim = 0 : tensor<18xf32>
  %three = stablehlo.constant dense<3.0> : tensor<18xf32>
  %one = stablehlo.constant dense<1.0> : tensor<18xf32>
  %jm = stablehlo.remainder %j, %three : tensor<18xf32>
  %js = stablehlo.subtract %jm, %one : tensor<18xf32>
  %kb = stablehlo.reshape %js : (tensor<18xf32>) -> tensor<1x2x3x3xf32>
  %r = func.call @joined(%x, %ka, %kb) : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x3x2x3xf32>
  check.expect_almost_eq_const %r, dense<[[[[2.0, 8.0, 0.0], [11.0, 2.0, 0.0]], [[-1.0, -3.0, 0.0], [-4.0, -1.0, 0.0]], [[4.0, 8.0, 0.0], [12.0, -3.0, 0.0]]]]> : tensor<1x3x2x3xf32>
  return
}
