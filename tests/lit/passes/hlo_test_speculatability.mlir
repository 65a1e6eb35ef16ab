// RUN: sed '/^\/\/ UNPORTED$/,$d' %s | shlo-opt --hlo-test-speculatability --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: sed '/^\/\/ UNPORTED$/,$d' %s | shlo-opt --pass-pipeline='builtin.module(func.func(hlo-test-speculatability))' --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: not shlo-opt %s --hlo-test-speculatability --split-input-file --allow-unregistered-dialect 2>&1 >/dev/null | filecheck %s --check-prefix=ERR

// A test op whose operand's producer has that speculatability goes, with the producer; one
// whose expectation is wrong stays, and so does its producer. Each group below is one rule.

// Elementwise unary ops: a static result dimension must be static in the operand.
// CHECK-LABEL: func @static_dim_in_output
// CHECK-NEXT: %[[BAD:.*]] = stablehlo.abs %arg1 : (tensor<?xf32>) -> tensor<2xf32>
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"(%[[BAD]])
// CHECK-NEXT: return
func.func @static_dim_in_output(%static: tensor<2xf32>, %dynamic: tensor<?xf32>) {
  %0 = stablehlo.abs %static : (tensor<2xf32>) -> tensor<?xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<?xf32>) -> ()
  %1 = stablehlo.abs %dynamic : (tensor<?xf32>) -> tensor<?xf32>
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<?xf32>) -> ()
  %2 = stablehlo.abs %dynamic : (tensor<?xf32>) -> tensor<2xf32>
  "hlo_test_speculatability.is_not_speculatable"(%2) : (tensor<2xf32>) -> ()
  %3 = stablehlo.abs %dynamic : (tensor<?xf32>) -> tensor<2xf32>
  "hlo_test_speculatability.is_speculatable"(%3) : (tensor<2xf32>) -> ()
  return
}

// -----

// Binary elementwise ops: every operand must be static, whatever the result.
// CHECK-LABEL: func @all_inputs_static
// CHECK-NEXT: return
func.func @all_inputs_static(%static: tensor<2xf32>, %dynamic: tensor<?xf32>) {
  %0 = stablehlo.add %static, %static : tensor<2xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<2xf32>) -> ()
  %1 = stablehlo.add %static, %dynamic : (tensor<2xf32>, tensor<?xf32>) -> tensor<?xf32>
  "hlo_test_speculatability.is_not_speculatable"(%1) : (tensor<?xf32>) -> ()
  return
}

// -----

// Pure ops always are; if/case/while are recursively speculatable (their regions decide).
// CHECK-LABEL: func @pure_and_recursive
// CHECK-NEXT: return
func.func @pure_and_recursive(%dynamic: tensor<?xf32>, %index: tensor<i32>, %pred: tensor<i1>) {
  %0 = stablehlo.dynamic_slice %dynamic, %index, sizes = [1] : (tensor<?xf32>, tensor<i32>) -> tensor<1xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<1xf32>) -> ()
  %1 = "stablehlo.if"(%pred) ({
    stablehlo.return %dynamic : tensor<?xf32>
  }, {
    stablehlo.return %dynamic : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  "hlo_test_speculatability.is_recursively_speculatable"(%1) : (tensor<?xf32>) -> ()
  return
}

// -----

// Region ops with static inputs are recursively speculatable; with dynamic ones, not at all.
// CHECK-LABEL: func @recursive_if_inputs_static
// CHECK-NEXT: %[[SORT:.*]] = "stablehlo.sort"(%arg0)
// CHECK: "hlo_test_speculatability.is_speculatable"(%[[SORT]])
// CHECK-NEXT: return
func.func @recursive_if_inputs_static(%static: tensor<4xf32>, %dynamic: tensor<?xf32>) {
  %0 = "stablehlo.sort"(%static) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<4xf32>) -> ()
  %1 = "stablehlo.sort"(%static) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  "hlo_test_speculatability.is_recursively_speculatable"(%1) : (tensor<4xf32>) -> ()
  %2 = "stablehlo.sort"(%dynamic) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  "hlo_test_speculatability.is_not_speculatable"(%2) : (tensor<?xf32>) -> ()
  return
}

// -----

// Shape operands: speculatable only when constant (and the inputs static); the constant left
// unused goes too, as upstream's greedy driver erases dead ops.
// CHECK-LABEL: func @shape_operand
// CHECK-NEXT: return
func.func @shape_operand(%static: tensor<6xf32>, %shape: tensor<2xi64>) {
  %c = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %static, %c : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<2x3xf32>) -> ()
  %1 = stablehlo.dynamic_reshape %static, %shape : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  "hlo_test_speculatability.is_not_speculatable"(%1) : (tensor<2x3xf32>) -> ()
  %2 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<?x?xi64>
  "hlo_test_speculatability.is_speculatable"(%2) : (tensor<?x?xi64>) -> ()
  %3 = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<2xi64>) -> tensor<2x?xi64>
  "hlo_test_speculatability.is_not_speculatable"(%3) : (tensor<2x?xi64>) -> ()
  return
}

// -----

// Attributes: sorted or unique indices, or a unit diagonal, are promises the op cannot check.
// CHECK-LABEL: func @attributes
// CHECK-NEXT: return
func.func @attributes(%a: tensor<2x2xf32>, %indices: tensor<1x1xi32>) {
  %0 = "stablehlo.gather"(%a, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>, indices_are_sorted = true
  } : (tensor<2x2xf32>, tensor<1x1xi32>) -> tensor<1x2xf32>
  "hlo_test_speculatability.is_not_speculatable"(%0) : (tensor<1x2xf32>) -> ()
  %1 = "stablehlo.gather"(%a, %indices) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>, indices_are_sorted = false
  } : (tensor<2x2xf32>, tensor<1x1xi32>) -> tensor<1x2xf32>
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<1x2xf32>) -> ()
  %2 = "stablehlo.triangular_solve"(%a, %a) {left_side = true, lower = true, unit_diagonal = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  "hlo_test_speculatability.is_not_speculatable"(%2) : (tensor<2x2xf32>) -> ()
  %3 = "stablehlo.triangular_solve"(%a, %a) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  "hlo_test_speculatability.is_speculatable"(%3) : (tensor<2x2xf32>) -> ()
  return
}

// -----

// Dimension maps: dot_general's contracting dimensions must be static; transpose follows its
// permutation; concatenate's operands may be dynamic only along a dynamic concat dimension.
// CHECK-LABEL: func @dimension_maps
// CHECK-NEXT: return
func.func @dimension_maps(%static: tensor<2x3xf32>, %dynamic: tensor<?x3xf32>, %contract: tensor<2x?xf32>) {
  %0 = stablehlo.dot_general %contract, %contract, contracting_dims = [1] x [1] : (tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<?x?xf32>
  "hlo_test_speculatability.is_not_speculatable"(%0) : (tensor<?x?xf32>) -> ()
  %1 = stablehlo.dot_general %dynamic, %static, contracting_dims = [1] x [1] : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x2xf32>
  "hlo_test_speculatability.is_speculatable"(%1) : (tensor<?x2xf32>) -> ()
  %2 = stablehlo.dot_general %dynamic, %static, contracting_dims = [1] x [1] : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  "hlo_test_speculatability.is_not_speculatable"(%2) : (tensor<4x2xf32>) -> ()
  %3 = stablehlo.transpose %dynamic, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
  "hlo_test_speculatability.is_speculatable"(%3) : (tensor<3x?xf32>) -> ()
  %4 = stablehlo.transpose %dynamic, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<?x2xf32>
  "hlo_test_speculatability.is_not_speculatable"(%4) : (tensor<?x2xf32>) -> ()
  %5 = stablehlo.concatenate %static, %dynamic, dim = 0 : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  "hlo_test_speculatability.is_speculatable"(%5) : (tensor<?x3xf32>) -> ()
  %6 = stablehlo.concatenate %static, %dynamic, dim = 1 : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x?xf32>
  "hlo_test_speculatability.is_not_speculatable"(%6) : (tensor<2x?xf32>) -> ()
  return
}

// -----

// Collectives: the dimension whose size is the process count must be dynamic in the result.
// CHECK-LABEL: func @collectives
// CHECK-NEXT: return
func.func @collectives(%a: tensor<2x3xf32>) {
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x3xf32>) -> tensor<?x3xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<?x3xf32>) -> ()
  %1 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  "hlo_test_speculatability.is_not_speculatable"(%1) : (tensor<4x3xf32>) -> ()
  return
}

// -----

// What upstream's pattern does not match stays: a producer with two uses, one that is not
// ConditionallySpeculatable (custom_call, an op of no registered dialect), a test op with no
// operand.
// CHECK-LABEL: func @unmatched
// CHECK-NEXT: %[[ABS:.*]] = stablehlo.abs %arg0
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"(%[[ABS]])
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"(%[[ABS]])
// CHECK-NEXT: %[[CALL:.*]] = stablehlo.custom_call @f(%arg0)
// CHECK-NEXT: "hlo_test_speculatability.is_not_speculatable"(%[[CALL]])
// CHECK-NEXT: %[[FOO:.*]] = "foo.bar"(%arg0)
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"(%[[FOO]])
// CHECK-NEXT: "hlo_test_speculatability.is_speculatable"()
// CHECK-NEXT: return
func.func @unmatched(%a: tensor<2xf32>) {
  %0 = stablehlo.abs %a : tensor<2xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<2xf32>) -> ()
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<2xf32>) -> ()
  %1 = stablehlo.custom_call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
  "hlo_test_speculatability.is_not_speculatable"(%1) : (tensor<2xf32>) -> ()
  %2 = "foo.bar"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  "hlo_test_speculatability.is_speculatable"(%2) : (tensor<2xf32>) -> ()
  "hlo_test_speculatability.is_speculatable"() : () -> ()
  return
}

// -----
// UNPORTED

// An op whose rule shlo has not ported fails the pass rather than guess.
// ERR: hlo_test_speculatability.mlir:[[# @LINE + 3]]:8: error: hlo-test-speculatability: the speculatability of 'arith.addf' is not ported to shlo
// ERR-NOT: Traceback
func.func @unported(%a: tensor<2xf32>) {
  %0 = arith.addf %a, %a : tensor<2xf32>
  "hlo_test_speculatability.is_speculatable"(%0) : (tensor<2xf32>) -> ()
  return
}
