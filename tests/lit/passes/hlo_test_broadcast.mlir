// RUN: shlo-opt %s --hlo-test-broadcast --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: shlo-opt %s -hlo-test-broadcast -split-input-file -allow-unregistered-dialect 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(hlo-test-broadcast))' --split-input-file --allow-unregistered-dialect | filecheck %s

// Operands of different ranks: NumPy's rule aligns them on the right.
// CHECK-LABEL: func.func @ranks
// CHECK:      %[[A:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: stablehlo.custom_call @numpy_broadcasted(%[[A]], %arg1) {has_side_effect = true}
func.func @ranks(%arg0: tensor<3xf32>, %arg1: tensor<2x3xf32>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1) : (tensor<3xf32>, tensor<2x3xf32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// Size-1 dimensions on both sides, three operands; one already has the common shape.
// CHECK-LABEL: func.func @three
// CHECK:      %[[A:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x1xi8>) -> tensor<4x5xi8>
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x5xi8>) -> tensor<4x5xi8>
// CHECK-NEXT: stablehlo.custom_call @numpy_broadcasted(%[[A]], %[[B]], %arg2)
func.func @three(%arg0: tensor<4x1xi8>, %arg1: tensor<1x5xi8>, %arg2: tensor<4x5xi8>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1, %arg2) : (tensor<4x1xi8>, tensor<1x5xi8>, tensor<4x5xi8>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// A static operand grows into a bounded dimension: padded to the bound, then given the
// runtime size of the bounded operand's dimension.
// CHECK-LABEL: func.func @bounded
// CHECK:      %[[A:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<1xf32>) -> tensor<6x1xf32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x1xf32, #stablehlo.bounds<6, ?>>) -> tensor<i32>
// CHECK-NEXT: %[[D:.*]] = stablehlo.set_dimension_size %[[A]], %[[N]], dim = 0 : (tensor<6x1xf32>, tensor<i32>) -> tensor<?x1xf32, #stablehlo.bounds<6, ?>>
// CHECK-NEXT: stablehlo.custom_call @numpy_broadcasted(%arg0, %[[D]])
func.func @bounded(%arg0: tensor<?x1xf32, #stablehlo.bounds<6, ?>>, %arg1: tensor<1xf32>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1) : (tensor<?x1xf32, #stablehlo.bounds<6, ?>>, tensor<1xf32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

// Shapes that do not broadcast: an error at the operand, the op left as it was, and the pass
// (like upstream's greedy driver) still succeeds.
// ERR: hlo_test_broadcast.mlir:[[# @LINE + 4]]:43: error: incompatible shapes for broadcasting 4 and 3
// ERR: hlo_test_broadcast.mlir:[[# @LINE + 8]]:8: error: requires at least one operand to broadcast
// CHECK-LABEL: func.func @mismatch
// CHECK-NEXT: "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1)
func.func @mismatch(%arg0: tensor<4xf32>, %arg1: tensor<3xf32>) -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"(%arg0, %arg1) : (tensor<4xf32>, tensor<3xf32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}
func.func @empty() -> !stablehlo.token {
  %0 = "hlo_test_broadcast.numpy_broadcast"() : () -> !stablehlo.token
  return %0 : !stablehlo.token
}
