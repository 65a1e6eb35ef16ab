// stablehlo-target-independent-optimization: upstream's folder patterns (benefit 2) and its
// simplification patterns (StablehloAggressiveSimplification.cpp and its DRR file at 7b1b157)
// in one greedy rewrite.  Expected forms follow from upstream's patterns.
// RUN: shlo-opt %s --stablehlo-target-independent-optimization | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-target-independent-optimization))' | filecheck %s
// RUN: shlo-opt %s --stablehlo-target-independent-optimization='fold-op-element-limit=2 optimize-float=false' | filecheck %s --check-prefix=OPTIONS

// Folding comes first: add(1, 1) is 2 before any constant moves to the right.
// CHECK-LABEL: func.func @folds_first
// CHECK: %[[TWO:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK: stablehlo.add %arg0, %[[TWO]] : tensor<f32>
// OPTIONS-LABEL: func.func @folds_first
// OPTIONS: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// OPTIONS: %[[SUM:.*]] = stablehlo.add %[[ONE]], %[[ONE]] : tensor<f32>
// OPTIONS: stablehlo.add %[[SUM]], %arg0 : tensor<f32>
func.func @folds_first(%arg0: tensor<f32>) -> tensor<f32> {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %0 = stablehlo.add %one, %one : tensor<f32>
  %1 = stablehlo.add %0, %arg0 : tensor<f32>
  return %1 : tensor<f32>
}

// Constants move to the right of commutative ops; x + 0, x * 1, x & -1, x | 0, x - (-0.0)
// are x; x * 0 and x & 0 (integers) are 0, x | -1 is -1, x - x and x ^ x are 0.
// CHECK-LABEL: func.func @arithmetic_identities
// CHECK-DAG: %[[MINUS_ONE:.*]] = stablehlo.constant dense<-1> : tensor<4xi32>
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<4xi32>
// CHECK-DAG: %[[THREE:.*]] = stablehlo.constant dense<3> : tensor<4xi32>
// CHECK: %[[SCALED:.*]] = stablehlo.multiply %arg0, %[[THREE]]
// CHECK: return %[[SCALED]], %arg0, %[[ZERO]], %arg0, %arg1, %[[ZERO]], %[[MINUS_ONE]], %arg1, %[[ZERO]], %arg0
func.func @arithmetic_identities(%x: tensor<4xi32>, %f: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  %c = stablehlo.constant dense<3> : tensor<4xi32>
  %0 = stablehlo.multiply %c, %x : tensor<4xi32>
  %zero = stablehlo.constant dense<0> : tensor<4xi32>
  %1 = stablehlo.add %x, %zero : tensor<4xi32>
  %2 = stablehlo.multiply %x, %zero : tensor<4xi32>
  %ones = stablehlo.constant dense<-1> : tensor<4xi32>
  %3 = stablehlo.and %x, %ones : tensor<4xi32>
  %fz = stablehlo.constant dense<-0.0> : tensor<4xf32>
  %4 = stablehlo.subtract %f, %fz : tensor<4xf32>
  %5 = stablehlo.subtract %x, %x : tensor<4xi32>
  %6 = stablehlo.or %x, %ones : tensor<4xi32>
  %fone = stablehlo.constant dense<1.0> : tensor<4xf32>
  %7 = stablehlo.multiply %f, %fone : tensor<4xf32>
  %8 = stablehlo.xor %x, %x : tensor<4xi32>
  %9 = stablehlo.or %zero, %x : tensor<4xi32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// Shape ops: identity broadcasts, reshapes and transposes go; chains merge; a broadcast that
// keeps the element count becomes a reshape.
// CHECK-LABEL: func.func @shape_ops
// CHECK-DAG: %[[FLAT:.*]] = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-DAG: %[[SWAPPED:.*]] = stablehlo.transpose %arg0, dims = [1, 0]
// CHECK-DAG: %[[ROW:.*]] = stablehlo.reshape %arg1 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-DAG: %[[WIDE:.*]] = stablehlo.broadcast_in_dim %[[ROW]], dims = [1, 2] : (tensor<1x3xf32>) -> tensor<4x2x3xf32>
// CHECK-DAG: %[[COLUMN:.*]] = stablehlo.reshape %arg1 : (tensor<3xf32>) -> tensor<3x1xf32>
// CHECK: return %arg0, %[[FLAT]], %[[SWAPPED]], %[[WIDE]], %[[COLUMN]], %arg0
func.func @shape_ops(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<3x1xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.reshape %r : (tensor<3x2xf32>) -> tensor<6xf32>
  %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %b = stablehlo.broadcast_in_dim %y, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
  %3 = stablehlo.broadcast_in_dim %b, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<4x2x3xf32>
  %4 = stablehlo.broadcast_in_dim %y, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %5 = stablehlo.transpose %t, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<3x1xf32>, tensor<2x3xf32>
}

// compare(X, X) of integers is a constant; a constant moves right with the direction
// inverted; comparing a predicate with true (EQ) or false (NE) is the predicate.
// CHECK-LABEL: func.func @compares
// CHECK-DAG: %[[TRUE:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[FIVE:.*]] = stablehlo.constant dense<5> : tensor<4xi32>
// CHECK: %[[GT:.*]] = stablehlo.compare GT, %arg0, %[[FIVE]], SIGNED
// CHECK: return %[[TRUE]], %[[GT]], %arg1, %arg1
func.func @compares(%x: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = stablehlo.compare LE, %x, %x, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %c = stablehlo.constant dense<5> : tensor<4xi32>
  %1 = stablehlo.compare LT, %c, %x, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %t = stablehlo.constant dense<true> : tensor<4xi1>
  %2 = stablehlo.compare EQ, %p, %t : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %f = stablehlo.constant dense<false> : tensor<4xi1>
  %3 = stablehlo.compare NE, %p, %f : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// dynamic_slice and gather with constant starts become slices (starts clamped); empty
// concatenate operands go; a multi-dimensional iota is a broadcast 1-d one; a slice reads
// only the concatenate operands it needs.
// CHECK-LABEL: func.func @slices
// CHECK-DAG: %[[DS:.*]] = stablehlo.slice %arg0 [2:4, 1:5] : (tensor<4x5xf32>) -> tensor<2x4xf32>
// CHECK-DAG: %[[PAD:.*]] = stablehlo.pad %[[DS]]
// CHECK-DAG: %[[CAT:.*]] = stablehlo.concatenate %arg1, %arg1, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
// CHECK-DAG: %[[ROW:.*]] = stablehlo.slice %arg0 [3:4, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
// CHECK-DAG: %[[LINE:.*]] = stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK-DAG: %[[IOTA:.*]] = stablehlo.broadcast_in_dim %[[LINE]], dims = [1] : (tensor<4xi32>) -> tensor<3x4xi32>
// CHECK: return %[[PAD]], %[[CAT]], %[[ROW]], %[[IOTA]], %arg1
func.func @slices(%x: tensor<4x5xf32>, %y: tensor<2xf32>, %z: tensor<0xf32>) -> (tensor<2x5xf32>, tensor<4xf32>, tensor<1x5xf32>, tensor<3x4xi32>, tensor<2xf32>) {
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c9 = stablehlo.constant dense<9> : tensor<i32>
  %0 = stablehlo.dynamic_slice %x, %c9, %c1, sizes = [2, 4] : (tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
  %pad = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.pad %0, %pad, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x5xf32>
  %2 = stablehlo.concatenate %y, %z, %y, dim = 0 : (tensor<2xf32>, tensor<0xf32>, tensor<2xf32>) -> tensor<4xf32>
  %idx = stablehlo.constant dense<[7, 0]> : tensor<2xi32>
  %3 = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 0>, slice_sizes = array<i64: 1, 5>}> : (tensor<4x5xf32>, tensor<2xi32>) -> tensor<1x5xf32>
  %4 = stablehlo.iota dim = 1 : tensor<3x4xi32>
  %cat = stablehlo.concatenate %y, %y, %y, dim = 0 : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>
  %5 = stablehlo.slice %cat [2:4] : (tensor<6xf32>) -> tensor<2xf32>
  return %1, %2, %3, %4, %5 : tensor<2x5xf32>, tensor<4xf32>, tensor<1x5xf32>, tensor<3x4xi32>, tensor<2xf32>
}

// Unused reduce results and sort operands go; a loop-invariant while operand becomes an
// implicit capture.
// CHECK-LABEL: func.func @regions
// CHECK-DAG: %[[STEP:.*]] = stablehlo.constant dense<1> : tensor<i64>
// CHECK: %[[SUM:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
// CHECK: %[[SORTED:.*]] = "stablehlo.sort"(%arg0)
// CHECK: ^bb0(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>):
// CHECK: }) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[LOOP:.*]] = stablehlo.while(%[[I:.*]] = %arg2) : tensor<i64>
// CHECK: stablehlo.add %[[I]], %[[STEP]] : tensor<i64>
// CHECK: return %[[SUM]], %[[SORTED]], %[[LOOP]]
func.func @regions(%x: tensor<4xf32>, %y: tensor<4xi32>, %n: tensor<i64>) -> (tensor<f32>, tensor<4xf32>, tensor<i64>) {
  %f0 = stablehlo.constant dense<0.0> : tensor<f32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.reduce(%x init: %f0), (%y init: %i0) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
      %s = stablehlo.add %a, %b : tensor<f32>
      %t = stablehlo.add %c, %d : tensor<i32>
      stablehlo.return %s, %t : tensor<f32>, tensor<i32>
    }
  %1:2 = "stablehlo.sort"(%x, %y) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
  }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)
  %one = stablehlo.constant dense<1> : tensor<i64>
  %2:2 = stablehlo.while(%iterArg = %n, %step = %one) : tensor<i64>, tensor<i64>
    cond {
    %lt = stablehlo.compare LT, %iterArg, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %next = stablehlo.add %iterArg, %step : tensor<i64>
    stablehlo.return %next, %step : tensor<i64>, tensor<i64>
  }
  return %0#0, %1#0, %2#0 : tensor<f32>, tensor<4xf32>, tensor<i64>
}

// Dynamic ops with static shapes become static ones; a dynamic result returned from the
// function keeps its type through a convert.
// CHECK-LABEL: func.func @dynamism
// CHECK-DAG: %[[FOUR:.*]] = stablehlo.constant dense<4> : tensor<i32>
// CHECK-DAG: %[[BCAST:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-DAG: %[[LINE:.*]] = stablehlo.iota dim = 0 : tensor<3xi32>
// CHECK-DAG: %[[IOTA:.*]] = stablehlo.broadcast_in_dim %[[LINE]], dims = [1] : (tensor<3xi32>) -> tensor<5x3xi32>
// CHECK-DAG: %[[BACK:.*]] = stablehlo.convert %[[IOTA]] : (tensor<5x3xi32>) -> tensor<?x3xi32>
// CHECK: return %[[FOUR]], %[[BCAST]], %arg0, %[[BACK]]
func.func @dynamism(%x: tensor<4xf32>) -> (tensor<i32>, tensor<2x4xf32>, tensor<4xf32>, tensor<?x3xi32>) {
  %0 = stablehlo.get_dimension_size %x, dim = 0 : (tensor<4xf32>) -> tensor<i32>
  %shape = stablehlo.constant dense<[2, 4]> : tensor<2xi64>
  %1 = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1] : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %flat = stablehlo.constant dense<[4]> : tensor<1xi64>
  %2 = stablehlo.dynamic_reshape %x, %flat : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>
  %ishape = stablehlo.constant dense<[5, 3]> : tensor<2xi64>
  %3 = stablehlo.dynamic_iota %ishape, dim = 1 : (tensor<2xi64>) -> tensor<?x3xi32>
  return %0, %1, %2, %3 : tensor<i32>, tensor<2x4xf32>, tensor<4xf32>, tensor<?x3xi32>
}

// select(not(p), a, b) swaps its operands; a repacked tuple is the tuple; an original-API
// custom_call with mhlo.backend_config becomes a typed-FFI one; zero-element results are
// empty constants.
// CHECK-LABEL: func.func @misc
// CHECK-DAG: %[[EMPTY:.*]] = stablehlo.constant dense<> : tensor<0xf32>
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[SELECT:.*]] = stablehlo.select %arg1, %[[ZERO]], %arg0
// CHECK-DAG: %[[CALL:.*]] = stablehlo.custom_call @foo(%arg0) {api_version = 4 : i32, backend_config = {bar = 1 : i32}}
// CHECK: return %[[SELECT]], %arg2, %[[CALL]], %[[EMPTY]]
func.func @misc(%x: tensor<4xf32>, %p: tensor<4xi1>, %t: tuple<tensor<4xf32>, tensor<4xi1>>) -> (tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xi1>>, tensor<4xf32>, tensor<0xf32>) {
  %n = stablehlo.not %p : tensor<4xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %0 = stablehlo.select %n, %x, %zero : tensor<4xi1>, tensor<4xf32>
  %a = stablehlo.get_tuple_element %t[0] : (tuple<tensor<4xf32>, tensor<4xi1>>) -> tensor<4xf32>
  %b = stablehlo.get_tuple_element %t[1] : (tuple<tensor<4xf32>, tensor<4xi1>>) -> tensor<4xi1>
  %1 = stablehlo.tuple %a, %b : tuple<tensor<4xf32>, tensor<4xi1>>
  %2 = stablehlo.custom_call @foo(%x) {mhlo.backend_config = {bar = 1 : i32}} : (tensor<4xf32>) -> tensor<4xf32>
  %e = stablehlo.slice %x [1:1] : (tensor<4xf32>) -> tensor<0xf32>
  %3 = stablehlo.exponential %e : tensor<0xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tuple<tensor<4xf32>, tensor<4xi1>>, tensor<4xf32>, tensor<0xf32>
}

// select of constants folds element by element for any element type, up to the element
// limit.
// CHECK-LABEL: func.func @select_constants
// CHECK: stablehlo.constant dense<[1.000000e+00, 8.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NOT: stablehlo.select
// OPTIONS-LABEL: func.func @select_constants
// OPTIONS: stablehlo.select
func.func @select_constants() -> tensor<3xf32> {
  %p = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[7.0, 8.0, 9.0]> : tensor<3xf32>
  %0 = stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xf32>
  return %0 : tensor<3xf32>
}

// Discardable attributes of a removed op move to the value's producer.
// CHECK-LABEL: func.func @discardable_attributes
// CHECK: stablehlo.multiply %arg0, %arg0 {mhlo.frontend_attributes = {a = "1", b = "2"}, mhlo.sharding = "{replicated}"}
func.func @discardable_attributes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x {mhlo.frontend_attributes = {a = "0", b = "2"}} : tensor<4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %1 = stablehlo.add %0, %zero {mhlo.frontend_attributes = {a = "1"}, mhlo.sharding = "{replicated}"} : tensor<4xf32>
  return %1 : tensor<4xf32>
}
