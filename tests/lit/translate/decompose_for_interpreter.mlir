// The ops the interpreter lacks but a registered pass decomposes (the pipelines its errors
// suggest) evaluate once decomposed, with the expected values.  shlo-opt carries the check
// ops through passes of both binding worlds, as stablehlo-opt does.
// RUN: shlo-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops, chlo-legalize-to-stablehlo), func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))' \
// RUN:   | shlo-translate --interpret --split-input-file 2>&1 | filecheck %s --allow-empty
// CHECK-NOT: error

func.func @batch_norm_inference() {
  %x = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %scale = stablehlo.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %offset = stablehlo.constant dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %var = stablehlo.constant dense<[4.0, 1.0]> : tensor<2xf32>
  %r = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {epsilon = 0.0 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  check.expect_almost_eq_const %r, dense<[[0.5, 0.0], [2.5, 2.0]]> : tensor<2x2xf32>
  return
}

// -----

func.func @dot() {
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = "stablehlo.dot"(%a, %a) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %r, dense<[[7.0, 10.0], [15.0, 22.0]]> : tensor<2x2xf32>
  return
}

// -----

func.func @broadcast() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 3>} : (tensor<2xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %r, dense<[[1, 2], [1, 2], [1, 2]]> : tensor<3x2xi32>
  return
}

// -----

func.func @erf() {
  %a = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %r = chlo.erf %a : tensor<2xf32> -> tensor<2xf32>
  check.expect_almost_eq_const %r, dense<[0.0, 0.842700779]> : tensor<2xf32>
  return
}
