// shlo-barrier-boolean-consumers: a select of a matmul's result (through an add) by a boolean
// mask reads it through an optimization_barrier; a select whose other operands no contraction
// computes, a contraction whose consumers read no boolean tensor, a select by a boolean the
// contraction itself computes, and one after a reduction of the contraction (a softmax) stay as
// they are.
// RUN: shlo-opt %s --shlo-barrier-boolean-consumers | filecheck %s

// CHECK-LABEL: func.func @masked_scores
// CHECK: %[[S:.*]] = stablehlo.dot_general %arg0, %arg1
// CHECK: %[[A:.*]] = stablehlo.add %[[S]], %arg3
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[A]] : tensor<3x6xf32>
// CHECK: stablehlo.select %arg2, %{{.*}}, %[[B]]
// CHECK-NOT: optimization_barrier
func.func @masked_scores(%q: tensor<3x8xf32>, %k: tensor<8x6xf32>, %mask: tensor<3x6xi1>, %bias: tensor<3x6xf32>) -> tensor<3x6xf32> {
  %lowest = stablehlo.constant dense<0xFF800000> : tensor<3x6xf32>
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [0] : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %a = stablehlo.add %s, %bias : tensor<3x6xf32>
  %r = stablehlo.select %mask, %lowest, %a : tensor<3x6xi1>, tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @plain_select
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @plain_select(%x: tensor<3x6xf32>, %mask: tensor<3x6xi1>) -> tensor<3x6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<3x6xf32>
  %r = stablehlo.select %mask, %zero, %x : tensor<3x6xi1>, tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @scalar_predicate
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @scalar_predicate(%q: tensor<3x8xf32>, %k: tensor<8x6xf32>, %p: tensor<i1>) -> tensor<3x6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<3x6xf32>
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [0] : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %r = stablehlo.select %p, %zero, %s : tensor<i1>, tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @own_boolean
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @own_boolean(%q: tensor<3x8xf32>, %k: tensor<8x6xf32>) -> tensor<3x6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<3x6xf32>
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [0] : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %lowest = stablehlo.constant dense<0xFF800000> : tensor<3x6xf32>
  %none = stablehlo.compare EQ, %s, %lowest : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xi1>
  %r = stablehlo.select %none, %zero, %s : tensor<3x6xi1>, tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}

// CHECK-LABEL: func.func @after_a_reduction
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @after_a_reduction(%q: tensor<3x8xf32>, %k: tensor<8x6xf32>, %mask: tensor<3x6xi1>) -> tensor<3x6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<3x6xf32>
  %s = stablehlo.dot_general %q, %k, contracting_dims = [1] x [0] : (tensor<3x8xf32>, tensor<8x6xf32>) -> tensor<3x6xf32>
  %low = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %max = stablehlo.reduce(%s init: %low) applies stablehlo.maximum across dimensions = [1] : (tensor<3x6xf32>, tensor<f32>) -> tensor<3xf32>
  %m = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<3xf32>) -> tensor<3x6xf32>
  %d = stablehlo.subtract %s, %m : tensor<3x6xf32>
  %e = stablehlo.exponential %d : tensor<3x6xf32>
  %r = stablehlo.select %mask, %zero, %e : tensor<3x6xi1>, tensor<3x6xf32>
  return %r : tensor<3x6xf32>
}
