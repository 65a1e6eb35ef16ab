// RUN: shlo-opt %s --hlo-test-infer --allow-unregistered-dialect --split-input-file --verify-diagnostics | filecheck %s
// RUN: shlo-opt %s -hlo-test-infer -allow-unregistered-dialect -split-input-file | filecheck %s
// RUN: shlo-opt %s --hlo-test-infer --allow-unregistered-dialect --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=WARN
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(hlo-test-infer))' --allow-unregistered-dialect --split-input-file | filecheck %s

// An inherent attribute decides the type (the bindings' own inferReturnTypes loses it).
// CHECK-LABEL: func.func @transpose
// CHECK: "hlo_test_infer.return_types"(%0) {types0 = tensor<3x?x2xf32>} : (tensor<3x2x?xf32>) -> tensor<3xindex>
func.func @transpose(%x: tensor<?x2x3xf32>) -> tensor<3xindex> {
  %0 = "stablehlo.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<?x2x3xf32>) -> tensor<3x2x?xf32>
  %1 = "hlo_test_infer.get_return_types"(%0) : (tensor<3x2x?xf32>) -> tensor<3xindex>
  func.return %1 : tensor<3xindex>
}

// -----

// Inference refines a result type the IR leaves dynamic.
// CHECK-LABEL: func.func @select
// CHECK: types0 = tensor<1x2x3xf32>
func.func @select(%p: tensor<i1>, %a: tensor<?x2x3xf32>, %b: tensor<1x?x3xf32>) -> tensor<3xindex> {
  %0 = "stablehlo.select"(%p, %a, %b) : (tensor<i1>, tensor<?x2x3xf32>, tensor<1x?x3xf32>) -> tensor<?x?x?xf32>
  %1 = "hlo_test_infer.get_return_types"(%0) : (tensor<?x?x?xf32>) -> tensor<3xindex>
  func.return %1 : tensor<3xindex>
}

// -----

// Every result of the producer, whichever result the test op takes.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK: types0 = tensor<2x?xf32>, types1 = tensor<2xf32>, types2 = tensor<2xf32>
func.func @batch_norm_training(%x: tensor<2x?xf32>, %s: tensor<2xf32>, %o: tensor<2xf32>) -> tensor<index> {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 0 : i64} : (tensor<2x?xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x?xf32>, tensor<2xf32>, tensor<2xf32>)
  %1 = "hlo_test_infer.get_return_types"(%0#2) : (tensor<2xf32>) -> tensor<index>
  func.return %1 : tensor<index>
}

// -----

// Ops with regions: the branches' and the body's types.
// CHECK-LABEL: func.func @regions
// CHECK: "hlo_test_infer.return_types"(%0#0) {types0 = tensor<2xf32>, types1 = tensor<i32>}
// CHECK: "hlo_test_infer.return_types"(%1) {types0 = tensor<i32>}
func.func @regions(%p: tensor<i1>, %x: tensor<2xf32>, %y: tensor<?xf32>, %i: tensor<i32>, %v: tensor<3xi32>) -> (tensor<index>, tensor<index>) {
  %0:2 = "stablehlo.if"(%p) ({
    stablehlo.return %x, %i : tensor<2xf32>, tensor<i32>
  }, {
    %c = stablehlo.convert %y : (tensor<?xf32>) -> tensor<2xf32>
    stablehlo.return %c, %i : tensor<2xf32>, tensor<i32>
  }) : (tensor<i1>) -> (tensor<2xf32>, tensor<i32>)
  %1 = "stablehlo.reduce"(%v, %i) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {dimensions = array<i64: 0>} : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
  %2 = "hlo_test_infer.get_return_types"(%0#0) : (tensor<2xf32>) -> tensor<index>
  %3 = "hlo_test_infer.get_return_types"(%1) : (tensor<i32>) -> tensor<index>
  func.return %2, %3 : tensor<index>, tensor<index>
}

// -----

// CHLO ops infer too.
// CHECK-LABEL: func.func @chlo
// CHECK: types0 = tensor<4x?xi1>
func.func @chlo(%a: tensor<4x1xf32>, %b: tensor<?xf32>) -> tensor<2xindex> {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<4x1xf32>, tensor<?xf32>) -> tensor<4x?xi1>
  %1 = "hlo_test_infer.get_return_types"(%0) : (tensor<4x?xi1>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}

// -----

// Where upstream's pattern does not match, the op stays and the pass succeeds: a block
// argument, a producer without InferTypeOpInterface, two operands.
// CHECK-LABEL: func.func @unmatched
// CHECK: "hlo_test_infer.get_return_types"(%arg0)
// CHECK: "hlo_test_infer.get_return_types"(%0)
// CHECK: "hlo_test_infer.get_return_types"(%arg0, %arg0)
// CHECK-NOT: return_types"
func.func @unmatched(%x: tensor<2xf32>) -> (tensor<index>, tensor<index>, tensor<index>) {
  %0 = "test.opaque"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "hlo_test_infer.get_return_types"(%x) : (tensor<2xf32>) -> tensor<index>
  %2 = "hlo_test_infer.get_return_types"(%0) : (tensor<2xf32>) -> tensor<index>
  %3 = "hlo_test_infer.get_return_types"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<index>
  func.return %1, %2, %3 : tensor<index>, tensor<index>, tensor<index>
}

// -----

// reify_return_type_shapes: an operand's shape (the first, or select's and clamp's second)...
// CHECK-LABEL: func.func @reify_operand
// CHECK-NEXT: %[[S0:.*]] = shape.shape_of %arg1 : tensor<?x2xf32> -> tensor<2xindex>
// CHECK-NEXT: %[[S1:.*]] = shape.shape_of %arg0 : tensor<?x2xf32> -> tensor<2xindex>
// CHECK-NEXT: return %[[S0]], %[[S1]]
func.func @reify_operand(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>, %p: tensor<i1>) -> (tensor<2xindex>, tensor<2xindex>) {
  %0 = stablehlo.select %p, %b, %a : (tensor<i1>, tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  %1 = stablehlo.compare LT, %a, %b : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xi1>
  %2 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x2xf32>) -> tensor<2xindex>
  %3 = "hlo_test_infer.reify_return_type_shapes"(%1) : (tensor<?x2xi1>) -> tensor<2xindex>
  func.return %2, %3 : tensor<2xindex>, tensor<2xindex>
}

// -----

// ... or the broadcast of every operand's shape for CHLO's broadcasting ops, the result rank
// the largest, `?` with an unranked operand; a producer still used stays.
// CHECK-LABEL: func.func @reify_broadcast
// CHECK-NEXT: %[[KEPT:.*]] = chlo.broadcast_add %arg0, %arg0
// CHECK-NEXT: %[[A:.*]] = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>
// CHECK-NEXT: %[[B:.*]] = shape.shape_of %arg1 : tensor<?x?xf32> -> tensor<2xindex>
// CHECK-NEXT: %[[AB:.*]] = shape.broadcast %[[A]], %[[B]] : tensor<1xindex>, tensor<2xindex> -> tensor<2xindex>
// CHECK-NEXT: %[[P:.*]] = shape.shape_of %arg2 : tensor<2xi1> -> tensor<1xindex>
// CHECK-NEXT: %[[U:.*]] = shape.shape_of %arg3 : tensor<*xf32> -> tensor<?xindex>
// CHECK-NEXT: %[[V:.*]] = shape.shape_of %arg3 : tensor<*xf32> -> tensor<?xindex>
// CHECK-NEXT: %[[PUV:.*]] = shape.broadcast %[[P]], %[[U]], %[[V]] : tensor<1xindex>, tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>
// CHECK-NEXT: shape.shape_of
// CHECK-NEXT: shape.shape_of
// CHECK-NEXT: shape.broadcast
// CHECK-NEXT: return %[[AB]], %[[PUV]], %{{.*}}, %[[KEPT]]
func.func @reify_broadcast(%a: tensor<?xf32>, %b: tensor<?x?xf32>, %p: tensor<2xi1>, %u: tensor<*xf32>) -> (tensor<2xindex>, tensor<?xindex>, tensor<1xindex>, tensor<?xf32>) {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction EQ>} : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %1 = "chlo.broadcast_select"(%p, %u, %u) : (tensor<2xi1>, tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %2 = chlo.broadcast_add %a, %a : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %3 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x?xi1>) -> tensor<2xindex>
  %4 = "hlo_test_infer.reify_return_type_shapes"(%1) : (tensor<*xf32>) -> tensor<?xindex>
  %5 = "hlo_test_infer.reify_return_type_shapes"(%2) : (tensor<?xf32>) -> tensor<1xindex>
  func.return %3, %4, %5, %2 : tensor<2xindex>, tensor<?xindex>, tensor<1xindex>, tensor<?xf32>
}

// -----

// broadcast_dimensions that are not NumPy's prefix padding: upstream's warning, the op stays.
// CHECK-LABEL: func.func @not_prefix_padded
// CHECK: "hlo_test_infer.reify_return_type_shapes"(%0)
func.func @not_prefix_padded(%a: tensor<?xf32>, %b: tensor<?x?xf32>) -> tensor<2xindex> {
  // expected-warning @+1 {{unsupported non prefix-padded dynamic rank broadcast_dimensions = array<i64: 0>}}
  %0 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x?xf32>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}

// -----

// Upstream's builders, folded as the greedy driver folds what a pattern creates: a static size
// is a constant, an all-constant shape a dense constant, constants made once at the top.
// CHECK-LABEL: func.func @reify_folded
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[STATIC:.*]] = arith.constant dense<[4, 3]> : tensor<2xindex>
// CHECK-NOT: arith.constant
// CHECK: %[[D:.*]] = tensor.dim %arg1, %[[C0]] : tensor<?x3xf32>
// CHECK-NEXT: %[[S1:.*]] = arith.addi %[[D]], %[[C1]] : index
// CHECK-NEXT: %[[S2:.*]] = arith.addi %[[S1]], %[[C1]] : index
// CHECK-NEXT: %[[S3:.*]] = arith.addi %[[S2]], %[[C1]] : index
// CHECK-NEXT: %[[MIXED:.*]] = tensor.from_elements %[[S3]], %[[C3]] : tensor<2xindex>
// CHECK-NEXT: return %[[STATIC]], %[[MIXED]]
func.func @reify_folded(%a: tensor<1x3xf32>, %b: tensor<?x3xf32>) -> (tensor<2xindex>, tensor<2xindex>) {
  %0 = "stablehlo.concatenate"(%a, %a, %a, %a) {dimension = 0 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<4x3xf32>
  %1 = "stablehlo.concatenate"(%b, %a, %a, %a) {dimension = 0 : i64} : (tensor<?x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  %2 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<4x3xf32>) -> tensor<2xindex>
  %3 = "hlo_test_infer.reify_return_type_shapes"(%1) : (tensor<?x3xf32>) -> tensor<2xindex>
  func.return %2, %3 : tensor<2xindex>, tensor<2xindex>
}

// -----

// pad: interior padding as max(size - 1, 0) * interior, then the edges.
// CHECK-LABEL: func.func @reify_pad
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?xf32>
// CHECK-NEXT: %[[M:.*]] = arith.subi %[[D]], %[[C1]] : index
// CHECK-NEXT: %[[N:.*]] = arith.maxsi %[[M]], %[[C0]] : index
// CHECK-NEXT: %[[I:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[D]], %[[I]] : index
// CHECK-NEXT: %[[E:.*]] = arith.addi %[[S]], %[[C5]] : index
// CHECK-NEXT: tensor.from_elements %[[E]] : tensor<1xindex>
func.func @reify_pad(%x: tensor<?xf32>, %v: tensor<f32>) -> tensor<1xindex> {
  %0 = stablehlo.pad %x, %v, low = [2], high = [3], interior = [2] : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?xf32>) -> tensor<1xindex>
  func.return %1 : tensor<1xindex>
}

// -----

// An i32 shape operand cast to index; rng, which has effects, stays once unused.
// CHECK-LABEL: func.func @reify_shape_operands
// CHECK-NEXT: %[[R:.*]] = stablehlo.rng
// CHECK-NEXT: %[[CAST:.*]] = arith.index_cast %arg0 : tensor<2xi32> to tensor<2xindex>
// CHECK-NEXT: return %[[CAST]], %arg1
func.func @reify_shape_operands(%s: tensor<2xi32>, %t: tensor<2xindex>, %x: tensor<?xf32>, %a: tensor<f32>) -> (tensor<2xindex>, tensor<2xindex>) {
  %0 = stablehlo.dynamic_reshape %x, %s : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %1 = stablehlo.rng %a, %a, %t, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %2 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x?xf32>) -> tensor<2xindex>
  %3 = "hlo_test_infer.reify_return_type_shapes"(%1) : (tensor<?x?xf32>) -> tensor<2xindex>
  func.return %2, %3 : tensor<2xindex>, tensor<2xindex>
}

// -----

// gather: batch dimensions from start_indices (the index vector's skipped), offset ones from
// slice_sizes (the collapsed ones skipped).
// CHECK-LABEL: func.func @reify_gather
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = tensor.dim %arg1, %[[C1]] : tensor<2x?xi32>
// CHECK-NEXT: tensor.from_elements %[[D]], %[[C8]] : tensor<2xindex>
func.func @reify_gather(%x: tensor<4x9xf32>, %i: tensor<2x?xi32>) -> tensor<2xindex> {
  %0 = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 0>,
    slice_sizes = array<i64: 1, 8>
  } : (tensor<4x9xf32>, tensor<2x?xi32>) -> tensor<?x8xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x8xf32>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}

// -----

// Where upstream builds no shape the pattern fails and the op stays, the pass succeeding: a
// bitcast that changes the element size, an op without a reification of its own.
// CHECK-LABEL: func.func @reify_none
// CHECK: "hlo_test_infer.reify_return_type_shapes"(%0)
// CHECK: "hlo_test_infer.reify_return_type_shapes"(%1)
func.func @reify_none(%x: tensor<?xi64>, %i: tensor<i32>) -> (tensor<2xindex>, tensor<1xindex>) {
  %0 = stablehlo.bitcast_convert %x : (tensor<?xi64>) -> tensor<?x2xi32>
  %1 = stablehlo.dynamic_slice %x, %i, sizes = [1] : (tensor<?xi64>, tensor<i32>) -> tensor<1xi64>
  %2 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x2xi32>) -> tensor<2xindex>
  %3 = "hlo_test_infer.reify_return_type_shapes"(%1) : (tensor<1xi64>) -> tensor<1xindex>
  func.return %2, %3 : tensor<2xindex>, tensor<1xindex>
}

// -----

// get_return_type_components of dot and dot_general: sizes of `index`, with the bounds of the
// operands' dimensions the result keeps (a static batching size wins over a bound).
// CHECK-LABEL: func.func @components
// CHECK: "hlo_test_infer.return_type_components"(%0) {types0 = tensor<?x?xindex, #stablehlo.bounds<64, 32>>}
// CHECK: "hlo_test_infer.return_type_components"(%1) {types0 = tensor<3x?x5xindex, #stablehlo.bounds<?, 16, ?>>}
// CHECK: "hlo_test_infer.return_type_components"(%2) {types0 = tensor<2x2xindex>}
func.func @components(%a: tensor<?x12xf32, #stablehlo.bounds<64, ?>>, %b: tensor<12x?xf32, #stablehlo.bounds<?, 32>>, %c: tensor<3x?x4xf32, #stablehlo.bounds<?, 16, ?>>, %d: tensor<?x4x5xf32, #stablehlo.bounds<8, ?, ?>>, %e: tensor<2x2xf32>) -> (tensor<2xindex>, tensor<3xindex>, tensor<2xindex>) {
  %0 = stablehlo.dot %a, %b : (tensor<?x12xf32, #stablehlo.bounds<64, ?>>, tensor<12x?xf32, #stablehlo.bounds<?, 32>>) -> tensor<?x?xf32, #stablehlo.bounds<64, 32>>
  %1 = stablehlo.dot_general %c, %d, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x?x4xf32, #stablehlo.bounds<?, 16, ?>>, tensor<?x4x5xf32, #stablehlo.bounds<8, ?, ?>>) -> tensor<3x?x5xf32, #stablehlo.bounds<?, 16, ?>>
  %2 = stablehlo.dot %e, %e : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<?x?xf32, #stablehlo.bounds<64, 32>>) -> tensor<2xindex>
  %4 = "hlo_test_infer.get_return_type_components"(%1) : (tensor<3x?x5xf32, #stablehlo.bounds<?, 16, ?>>) -> tensor<3xindex>
  %5 = "hlo_test_infer.get_return_type_components"(%2) : (tensor<2x2xf32>) -> tensor<2xindex>
  func.return %3, %4, %5 : tensor<2xindex>, tensor<3xindex>, tensor<2xindex>
}

// -----

// get_return_type_components of the other ops that define it: their inferred types (element
// type and bounds included).  An op with only the interface's default (abs, concatenate,
// is_inf) or without the interface (iota) fails the pattern, and its test op stays.
// CHECK-LABEL: func.func @components_from_types
// CHECK: "hlo_test_infer.return_type_components"(%0) {types0 = tensor<?x3xf32, #stablehlo.bounds<4, ?>>}
// CHECK: "hlo_test_infer.return_type_components"(%1) {types0 = tensor<?x3xi1, #stablehlo.bounds<4, ?>>}
// CHECK: "hlo_test_infer.return_type_components"(%2) {types0 = tensor<2x?x3xf32>}
// CHECK: "hlo_test_infer.return_type_components"(%3) {types0 = tensor<2xf32>}
// CHECK: "hlo_test_infer.return_type_components"(%4#0) {types0 = tensor<2x2xf32>, types1 = tensor<2x2xi32>}
// CHECK: "hlo_test_infer.get_return_type_components"(%5)
// CHECK: "hlo_test_infer.get_return_type_components"(%6)
// CHECK: "hlo_test_infer.get_return_type_components"(%7)
// CHECK: "hlo_test_infer.get_return_type_components"(%8)
func.func @components_from_types(%a: tensor<?x3xf32, #stablehlo.bounds<4, ?>>, %b: tensor<2x1x3xf32>, %c: tensor<?x3xf32>, %d: tensor<2x2xf32>, %k: tensor<2x2xi32>) -> (tensor<2xindex>, tensor<2xindex>, tensor<3xindex>, tensor<1xindex>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, tensor<1xindex>) {
  %0 = stablehlo.add %a, %a : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
  %1 = stablehlo.compare LT, %a, %a : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x3xi1, #stablehlo.bounds<4, ?>>
  %2 = chlo.broadcast_add %b, %c : (tensor<2x1x3xf32>, tensor<?x3xf32>) -> tensor<2x?x3xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %3 = stablehlo.reduce(%d init: %init) applies stablehlo.add across dimensions = [0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2xf32>
  %sorted:2 = "stablehlo.sort"(%d, %k) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):
    %lt = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<2x2xf32>, tensor<2x2xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  %5 = stablehlo.abs %d : tensor<2x2xf32>
  %6 = stablehlo.concatenate %d, %d, dim = 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %7 = chlo.is_inf %d : tensor<2x2xf32> -> tensor<2x2xi1>
  %8 = stablehlo.iota dim = 0 : tensor<3xf32>
  %r0 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<2xindex>
  %r1 = "hlo_test_infer.get_return_type_components"(%1) : (tensor<?x3xi1, #stablehlo.bounds<4, ?>>) -> tensor<2xindex>
  %r2 = "hlo_test_infer.get_return_type_components"(%2) : (tensor<2x?x3xf32>) -> tensor<3xindex>
  %r3 = "hlo_test_infer.get_return_type_components"(%3) : (tensor<2xf32>) -> tensor<1xindex>
  %r4 = "hlo_test_infer.get_return_type_components"(%sorted#0) : (tensor<2x2xf32>) -> tensor<2xindex>
  %r5 = "hlo_test_infer.get_return_type_components"(%5) : (tensor<2x2xf32>) -> tensor<2xindex>
  %r6 = "hlo_test_infer.get_return_type_components"(%6) : (tensor<4x2xf32>) -> tensor<2xindex>
  %r7 = "hlo_test_infer.get_return_type_components"(%7) : (tensor<2x2xi1>) -> tensor<2xindex>
  %r8 = "hlo_test_infer.get_return_type_components"(%8) : (tensor<3xf32>) -> tensor<1xindex>
  func.return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8 : tensor<2xindex>, tensor<2xindex>, tensor<3xindex>, tensor<1xindex>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, tensor<1xindex>
}

// -----

// chlo.ragged_dot's components: its sizes of `index` (the group count first where the ragged
// dimension is contracted).
// CHECK-LABEL: func.func @ragged_dot_components
// CHECK: "hlo_test_infer.return_type_components"(%0) {types0 = tensor<2x11x7xindex>}
// CHECK: "hlo_test_infer.return_type_components"(%1) {types0 = tensor<3x2x11x7xindex>}
func.func @ragged_dot_components(%lhs: tensor<2x11x5xf32>, %rhs: tensor<3x2x5x7xf32>, %rhs2: tensor<2x5x7xf32>, %group_sizes: tensor<3xi64>) -> (tensor<3xindex>, tensor<4xindex>) {
  %0 = "chlo.ragged_dot"(%lhs, %rhs, %group_sizes) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [0], rhs_batching_dimensions = [1],
      lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2],
      lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>
  %1 = "chlo.ragged_dot"(%lhs, %rhs2, %group_sizes) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [2], rhs_group_dimensions = []
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<2x11x5xf32>, tensor<2x5x7xf32>, tensor<3xi64>) -> tensor<3x2x11x7xf32>
  %2 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<2x11x7xf32>) -> tensor<3xindex>
  %3 = "hlo_test_infer.get_return_type_components"(%1) : (tensor<3x2x11x7xf32>) -> tensor<4xindex>
  func.return %2, %3 : tensor<3xindex>, tensor<4xindex>
}

// WARN: hlo_test_infer.mlir:{{[0-9]+}}:8: warning: unsupported non prefix-padded dynamic rank broadcast_dimensions = array<i64: 0>
