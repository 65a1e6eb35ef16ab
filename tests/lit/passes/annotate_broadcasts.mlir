// shlo-annotate-broadcasts marks the operand dims a dynamic_broadcast_in_dim provably keeps,
// which IREE 3.13 needs to lower it (the unannotated module fails in iree-compile).
// RUN: shlo-opt %s --split-input-file --shlo-annotate-broadcasts | filecheck %s
// RUN: not iree-compile %s --split-input-file --compile-to=input --iree-input-type=stablehlo -o /dev/null 2>&1 | filecheck %s --check-prefix=RAW
// RUN: shlo-opt %s --split-input-file --shlo-annotate-broadcasts \
// RUN:   | not iree-compile - --split-input-file --compile-to=input --iree-input-type=stablehlo -o /dev/null 2>&1 | filecheck %s --check-prefix=ANNOTATED

// Unannotated, IREE rejects both functions; annotated, only the one whose shape proves nothing.
// RAW-COUNT-2: error: failed to legalize operation 'stablehlo.dynamic_broadcast_in_dim'
// ANNOTATED-COUNT-1: error: failed to legalize operation 'stablehlo.dynamic_broadcast_in_dim'
// ANNOTATED-NOT: error

// CHECK-LABEL: func.func @main
func.func @main(%x: tensor<?x16xf32>, %bias: tensor<16xf32>, %one: tensor<1x16xf32>, %shape: tensor<2xi32>) -> (tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>) {
  %d0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x16xf32>) -> tensor<i32>
  %r0 = stablehlo.reshape %d0 : (tensor<i32>) -> tensor<1xi32>
  %c16 = stablehlo.constant dense<16> : tensor<1xi32>
  %own = stablehlo.concatenate %r0, %c16, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %c1 = stablehlo.constant dense<1> : tensor<1xi32>
  %ones = stablehlo.concatenate %c1, %c16, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %widest = stablehlo.maximum %own, %ones : tensor<2xi32>
  // Its own shape: neither dim expands.
  // CHECK: dynamic_broadcast_in_dim %arg0, %{{.*}}, dims = [0, 1] {known_nonexpanding_dimensions = array<i64: 0, 1>}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %own, dims = [0, 1] : (tensor<?x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
  // max(its own size, 1), as torch-mlir computes broadcast shapes: still its own size.
  // CHECK: dynamic_broadcast_in_dim %arg0, %{{.*}}, dims = [0, 1] {known_nonexpanding_dimensions = array<i64: 0, 1>}
  %1 = stablehlo.dynamic_broadcast_in_dim %x, %widest, dims = [0, 1] : (tensor<?x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
  // A static dim other than 1 cannot expand; a size-1 dim may, and is left unmarked.
  // CHECK: dynamic_broadcast_in_dim %arg1, %{{.*}}, dims = [1] {known_nonexpanding_dimensions = array<i64: 0>}
  %2 = stablehlo.dynamic_broadcast_in_dim %bias, %own, dims = [1] : (tensor<16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
  // CHECK: dynamic_broadcast_in_dim %arg2, %{{.*}}, dims = [0, 1] {known_nonexpanding_dimensions = array<i64: 1>}
  %3 = stablehlo.dynamic_broadcast_in_dim %one, %own, dims = [0, 1] : (tensor<1x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
  return %0, %1, %2, %3 : tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>, tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func.func @unknown
// A shape from outside proves nothing about a dynamic dim: it stays unmarked.
func.func @unknown(%x: tensor<?x16xf32>, %shape: tensor<2xi32>) -> tensor<?x16xf32> {
  // CHECK: dims = [0, 1] {known_nonexpanding_dimensions = array<i64: 1>}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [0, 1] : (tensor<?x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}
