// RUN: shlo-translate --interpret -split-input-file %s

func.func @elementwise() {
  %a = stablehlo.constant dense<[1.0, -2.0, 3.5]> : tensor<3xf32>
  %b = stablehlo.constant dense<[2.0, 4.0, -1.0]> : tensor<3xf32>
  %add = stablehlo.add %a, %b : tensor<3xf32>
  check.expect_eq_const %add, dense<[3.0, 2.0, 2.5]> : tensor<3xf32>
  %sub = stablehlo.subtract %a, %b : tensor<3xf32>
  check.expect_eq_const %sub, dense<[-1.0, -6.0, 4.5]> : tensor<3xf32>
  %mul = stablehlo.multiply %a, %b : tensor<3xf32>
  check.expect_eq_const %mul, dense<[2.0, -8.0, -3.5]> : tensor<3xf32>
  %div = stablehlo.divide %a, %b : tensor<3xf32>
  check.expect_almost_eq_const %div, dense<[0.5, -0.5, -3.5]> : tensor<3xf32>
  %max = stablehlo.maximum %a, %b : tensor<3xf32>
  check.expect_eq_const %max, dense<[2.0, 4.0, 3.5]> : tensor<3xf32>
  %min = stablehlo.minimum %a, %b : tensor<3xf32>
  check.expect_eq_const %min, dense<[1.0, -2.0, -1.0]> : tensor<3xf32>
  %abs = stablehlo.abs %a : tensor<3xf32>
  check.expect_eq_const %abs, dense<[1.0, 2.0, 3.5]> : tensor<3xf32>
  %neg = stablehlo.negate %a : tensor<3xf32>
  check.expect_eq_const %neg, dense<[-1.0, 2.0, -3.5]> : tensor<3xf32>
  func.return
}

// -----

func.func @transcendental() {
  %x = stablehlo.constant dense<[0.0, 1.0, 4.0]> : tensor<3xf32>
  %exp = stablehlo.exponential %x : tensor<3xf32>
  check.expect_almost_eq_const %exp, dense<[1.0, 2.7182817, 54.59815]> : tensor<3xf32>
  %sqrt = stablehlo.sqrt %x : tensor<3xf32>
  check.expect_almost_eq_const %sqrt, dense<[0.0, 1.0, 2.0]> : tensor<3xf32>
  %tanh = stablehlo.tanh %x : tensor<3xf32>
  check.expect_almost_eq_const %tanh, dense<[0.0, 0.7615942, 0.9993293]> : tensor<3xf32>
  %one = stablehlo.constant dense<[1.0, 2.0, 4.0]> : tensor<3xf32>
  %log = stablehlo.log %one : tensor<3xf32>
  check.expect_almost_eq_const %log, dense<[0.0, 0.6931472, 1.3862944]> : tensor<3xf32>
  func.return
}

// -----

func.func @integers_and_selection() {
  %a = stablehlo.constant dense<[1, 5, -3]> : tensor<3xi32>
  %b = stablehlo.constant dense<[2, 5, -4]> : tensor<3xi32>
  %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %lt, dense<[true, false, false]> : tensor<3xi1>
  %sel = stablehlo.select %lt, %a, %b : tensor<3xi1>, tensor<3xi32>
  check.expect_eq_const %sel, dense<[1, 5, -4]> : tensor<3xi32>
  %lo = stablehlo.constant dense<0> : tensor<i32>
  %hi = stablehlo.constant dense<4> : tensor<i32>
  %clamp = stablehlo.clamp %lo, %a, %hi : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  check.expect_eq_const %clamp, dense<[1, 4, 0]> : tensor<3xi32>
  %f = stablehlo.convert %a : (tensor<3xi32>) -> tensor<3xf32>
  check.expect_eq_const %f, dense<[1.0, 5.0, -3.0]> : tensor<3xf32>
  func.return
}

// -----

func.func @data_movement() {
  %iota = stablehlo.iota dim = 0 : tensor<6xi32>
  check.expect_eq_const %iota, dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
  %r = stablehlo.reshape %iota : (tensor<6xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %r, dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi32>
  %t = stablehlo.transpose %r, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %t, dense<[[0, 3], [1, 4], [2, 5]]> : tensor<3x2xi32>
  %s = stablehlo.slice %r [0:2, 1:3] : (tensor<2x3xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %s, dense<[[1, 2], [4, 5]]> : tensor<2x2xi32>
  %c = stablehlo.concatenate %s, %s, dim = 1 : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x4xi32>
  check.expect_eq_const %c, dense<[[1, 2, 1, 2], [4, 5, 4, 5]]> : tensor<2x4xi32>
  %one = stablehlo.constant dense<7> : tensor<i32>
  %b = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
  check.expect_eq_const %b, dense<7> : tensor<2x2xi32>
  func.return
}

// -----

func.func @reduction_and_dot() {
  %m = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%m init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
  check.expect_eq_const %sum, dense<[3.0, 7.0]> : tensor<2xf32>
  %dot = stablehlo.dot_general %m, %m, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %dot, dense<[[7.0, 10.0], [15.0, 22.0]]> : tensor<2x2xf32>
  check.expect_close %dot, %dot, max_ulp_difference = 0 : tensor<2x2xf32>, tensor<2x2xf32>
  func.return
}
