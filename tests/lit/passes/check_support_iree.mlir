// shlo-check-support{target=iree}: every op IREE's StableHLO input conversion rejects, in one
// run, each with iree-compile's own reason.  (iree-compile alone stops at the first.)
// RUN: shlo-opt %s --split-input-file --verify-diagnostics --shlo-check-support=target=iree
// RUN: not shlo-opt %s --split-input-file --shlo-check-support=target=iree 2>&1 | filecheck %s
// RUN: not iree-compile --compile-to=input --iree-input-type=stablehlo %s 2>&1 | filecheck %s --check-prefix=IREE

// CHECK: error: shlo-check-support: 5 unsupported for iree: stablehlo.batch_norm_grad x1, stablehlo.cholesky x2, stablehlo.custom_call x1, stablehlo.triangular_solve x1
// IREE-COUNT-1: error: failed to legalize
// IREE-NOT: error: failed to legalize

// expected-error@unknown {{shlo-check-support: 5 unsupported for iree: stablehlo.batch_norm_grad x1, stablehlo.cholesky x2, stablehlo.custom_call x1, stablehlo.triangular_solve x1}}
func.func @main(%a: tensor<2x2xf32>, %s: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  // expected-error@+1 {{iree: failed to legalize operation 'stablehlo.cholesky' that was explicitly marked illegal}}
  %0 = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  // expected-error@+1 {{iree: failed to legalize operation 'stablehlo.cholesky' that was explicitly marked illegal}}
  %1 = stablehlo.cholesky %0, lower = true : tensor<2x2xf32>
  // expected-error@+1 {{iree: failed to legalize operation 'stablehlo.triangular_solve' that was explicitly marked illegal}}
  %2 = "stablehlo.triangular_solve"(%1, %a) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  // expected-error@+1 {{iree: failed to legalize operation 'stablehlo.custom_call' that was explicitly marked illegal}}
  %3 = stablehlo.custom_call @my_kernel(%2) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // expected-error@+1 {{iree: failed to legalize operation 'stablehlo.batch_norm_grad' that was explicitly marked illegal}}
  %4:3 = "stablehlo.batch_norm_grad"(%3, %s, %s, %s, %3) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  // What IREE takes is not reported: dot_general, a dynamic_pad with constant paddings, tuples.
  %5 = stablehlo.dot_general %4#0, %a, contracting_dims = [1] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %lo = stablehlo.constant dense<1> : tensor<1xi64>
  %hi = stablehlo.constant dense<0> : tensor<1xi64>
  %6 = stablehlo.dynamic_pad %s, %zero, %lo, %hi, %hi : (tensor<2xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xf32>
  %7 = stablehlo.tuple %5, %6 : tuple<tensor<2x2xf32>, tensor<3xf32>>
  %8 = stablehlo.get_tuple_element %7[0] : (tuple<tensor<2x2xf32>, tensor<3xf32>>) -> tensor<2x2xf32>
  return %5, %8, %a : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A module IREE takes whole passes.
func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %1 = "stablehlo.sort"(%0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Ops inside regions are found at their own place.
// expected-error@unknown {{shlo-check-support: 1 unsupported for iree: stablehlo.cholesky x1}}
func.func @branches(%p: tensor<i1>, %a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %twice = stablehlo.add %a, %a : tensor<2x2xf32>
  %0 = "stablehlo.if"(%p) ({
    // expected-error@+1 {{iree: failed to legalize operation 'stablehlo.cholesky' that was explicitly marked illegal}}
    %1 = stablehlo.cholesky %twice, lower = true : tensor<2x2xf32>
    stablehlo.return %1 : tensor<2x2xf32>
  }, {
    stablehlo.return %twice : tensor<2x2xf32>
  }) : (tensor<i1>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
