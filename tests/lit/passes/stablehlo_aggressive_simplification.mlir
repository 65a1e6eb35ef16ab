// stablehlo-aggressive-simplification: upstream's canonicalization patterns
// (StablehloAggressiveSimplification.cpp and its DRR file at 7b1b157), run by shlo's port in
// place of the torch-mlir wheel's native pass.  Expected forms follow from upstream's patterns
// (the native pass gives the same output on this file).
// RUN: shlo-opt %s --stablehlo-aggressive-simplification | filecheck %s
// RUN: shlo-opt %s -stablehlo-aggressive-simplification | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-aggressive-simplification))' | filecheck %s
// RUN: shlo-opt %s --stablehlo-aggressive-simplification --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=WHERE

// It runs in process, as a Python pass, not in torch-mlir-opt.
// WHERE: [stablehlo] builtin.module(stablehlo-aggressive-simplification)

// Constants move to the right of commutative ops; add(X, 0), or(X, 0), and(X, -1) and
// multiply(X, 1) are X; and(X, 0) is 0 and or(X, -1) is -1.
// CHECK-LABEL: func.func @identities
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<0> : tensor<3xi32>
// CHECK-DAG: %[[ALL:.*]] = stablehlo.constant dense<-1> : tensor<3xi32>
// CHECK-DAG: %[[SEVEN:.*]] = stablehlo.constant dense<7> : tensor<3xi32>
// CHECK: %[[MAX:.*]] = stablehlo.maximum %arg0, %[[SEVEN]] : tensor<3xi32>
// CHECK: return %arg0, %arg0, %arg0, %arg0, %[[ZERO]], %[[ALL]], %[[MAX]]
func.func @identities(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
  %zero = stablehlo.constant dense<0> : tensor<3xi32>
  %one = stablehlo.constant dense<1> : tensor<3xi32>
  %all = stablehlo.constant dense<-1> : tensor<3xi32>
  %seven = stablehlo.constant dense<7> : tensor<3xi32>
  %0 = stablehlo.add %zero, %x : tensor<3xi32>
  %1 = stablehlo.or %x, %zero : tensor<3xi32>
  %2 = stablehlo.and %all, %x : tensor<3xi32>
  %3 = stablehlo.multiply %one, %x : tensor<3xi32>
  %4 = stablehlo.and %x, %zero : tensor<3xi32>
  %5 = stablehlo.or %x, %all : tensor<3xi32>
  %6 = stablehlo.maximum %seven, %x : tensor<3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
}

// Unlike stablehlo-target-independent-optimization, the pass has no folder patterns: an add of
// two constants stays.
// CHECK-LABEL: func.func @no_folding
// CHECK: %[[SUM:.*]] = stablehlo.add %{{.*}}, %{{.*}} : tensor<2xi32>
// CHECK: return %[[SUM]]
func.func @no_folding() -> tensor<2xi32> {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %0 = stablehlo.add %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// Integer compares (a SIGNED or UNSIGNED compare type) put the constant on the right with the
// inverted direction and fold compare(X, X); a compare without a type stays.
// CHECK-LABEL: func.func @compares
// CHECK-DAG: %[[TRUE:.*]] = stablehlo.constant dense<true> : tensor<2xi1>
// CHECK-DAG: %[[FIVE:.*]] = stablehlo.constant dense<5> : tensor<2xi32>
// CHECK: %[[GT:.*]] = stablehlo.compare GT, %arg0, %[[FIVE]], SIGNED
// CHECK: %[[NE:.*]] = stablehlo.compare NE, %arg0, %arg0 :
// CHECK: return %[[GT]], %[[TRUE]], %[[NE]]
func.func @compares(%x: tensor<2xi32>) -> (tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  %c = stablehlo.constant dense<5> : tensor<2xi32>
  %0 = stablehlo.compare LT, %c, %x, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %1 = stablehlo.compare EQ, %x, %x, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  %2 = stablehlo.compare NE, %x, %x : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return %0, %1, %2 : tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// A no-op convert, reshape, transpose or slice goes; reshape chains and transpose chains merge;
// a transpose that moves only a unit dimension is a reshape.
// CHECK-LABEL: func.func @shape_ops
// CHECK-DAG: %[[FLAT:.*]] = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-DAG: %[[COLUMN:.*]] = stablehlo.reshape %arg1 : (tensor<1x4xf32>) -> tensor<4x1xf32>
// CHECK-NOT: stablehlo.transpose
// CHECK: return %arg0, %[[FLAT]], %arg0, %[[COLUMN]], %arg0, %arg0
func.func @shape_ops(%x: tensor<2x3xf32>, %y: tensor<1x4xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<4x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = stablehlo.convert %x : tensor<2x3xf32>
  %1 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.reshape %1 : (tensor<3x2xf32>) -> tensor<6xf32>
  %3 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %5 = stablehlo.transpose %y, dims = [1, 0] : (tensor<1x4xf32>) -> tensor<4x1xf32>
  %6 = stablehlo.slice %x [0:2, 0:3] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %2, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<4x1xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// broadcast_in_dim over iota dimensions is X; chains merge; one that keeps the element count
// is a reshape where its dimensions are sorted and a transpose (same rank) where not.
// CHECK-LABEL: func.func @broadcasts
// CHECK-DAG: %[[WIDE:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<3xf32>) -> tensor<4x2x3xf32>
// CHECK-DAG: %[[ROW:.*]] = stablehlo.reshape %arg0 : (tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-DAG: %[[SWAPPED:.*]] = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: return %arg0, %[[WIDE]], %[[ROW]], %[[SWAPPED]]
func.func @broadcasts(%x: tensor<3xf32>, %m: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<4x2x3xf32>, tensor<1x3xf32>, tensor<3x2xf32>) {
  %0 = stablehlo.broadcast_in_dim %x, dims = [0] : (tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %3 = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
  %4 = stablehlo.broadcast_in_dim %m, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0, %2, %3, %4 : tensor<3xf32>, tensor<4x2x3xf32>, tensor<1x3xf32>, tensor<3x2xf32>
}

// Nested concatenates flatten, empty operands go, a concatenate of one operand is it.
// CHECK-LABEL: func.func @concatenates
// CHECK: %[[ALL:.*]] = stablehlo.concatenate %arg0, %arg1, %arg1, dim = 0 : (tensor<1xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<5xf32>
// CHECK: return %[[ALL]], %arg0
func.func @concatenates(%a: tensor<1xf32>, %b: tensor<2xf32>, %e: tensor<0xf32>) -> (tensor<5xf32>, tensor<1xf32>) {
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
  %1 = stablehlo.concatenate %0, %e, %b, dim = 0 : (tensor<3xf32>, tensor<0xf32>, tensor<2xf32>) -> tensor<5xf32>
  %2 = stablehlo.concatenate %a, dim = 0 : (tensor<1xf32>) -> tensor<1xf32>
  return %1, %2 : tensor<5xf32>, tensor<1xf32>
}

// slice(concatenate(...)) concatenates only the operands the slice reads.
// CHECK-LABEL: func.func @slice_of_concatenate
// CHECK: %[[PART:.*]] = stablehlo.concatenate %arg1, %arg2, dim = 0 : (tensor<3xf32>, tensor<4xf32>) -> tensor<7xf32>
// CHECK: %[[SLICE:.*]] = stablehlo.slice %[[PART]] [1:4] : (tensor<7xf32>) -> tensor<3xf32>
// CHECK: return %[[SLICE]]
func.func @slice_of_concatenate(%a: tensor<2xf32>, %b: tensor<3xf32>, %c: tensor<4xf32>) -> tensor<3xf32> {
  %0 = stablehlo.concatenate %a, %b, %c, dim = 0 : (tensor<2xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<9xf32>
  %1 = stablehlo.slice %0 [3:6] : (tensor<9xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// A splat predicate picks an operand, equal operands are that operand, select(not(p), t, f) is
// select(p, f, t); a constant predicate over constants picks element by element.
// CHECK-LABEL: func.func @selects
// CHECK-DAG: %[[PICKED:.*]] = stablehlo.constant dense<[1, 20, 30, 4]> : tensor<4xi32>
// CHECK-DAG: %[[SWAPPED:.*]] = stablehlo.select %arg0, %arg2, %arg1 : tensor<4xi1>, tensor<4xf32>
// CHECK-NOT: stablehlo.not
// CHECK: return %arg1, %arg1, %[[SWAPPED]], %[[PICKED]]
func.func @selects(%p: tensor<4xi1>, %t: tensor<4xf32>, %f: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %true = stablehlo.constant dense<true> : tensor<4xi1>
  %0 = stablehlo.select %true, %t, %f : tensor<4xi1>, tensor<4xf32>
  %1 = stablehlo.select %p, %t, %t : tensor<4xi1>, tensor<4xf32>
  %not = stablehlo.not %p : tensor<4xi1>
  %2 = stablehlo.select %not, %t, %f : tensor<4xi1>, tensor<4xf32>
  %mask = stablehlo.constant dense<[true, false, false, true]> : tensor<4xi1>
  %ones = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %tens = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %3 = stablehlo.select %mask, %ones, %tens : tensor<4xi1>, tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// get_tuple_element(tuple(...)) is the element; a tuple that repacks a tuple's elements is it.
// CHECK-LABEL: func.func @tuples
// CHECK-NEXT: return %arg1, %arg2
func.func @tuples(%a: tensor<f32>, %b: tensor<i32>, %t: tuple<tensor<f32>, tensor<i32>>) -> (tensor<i32>, tuple<tensor<f32>, tensor<i32>>) {
  %0 = stablehlo.tuple %a, %b : tuple<tensor<f32>, tensor<i32>>
  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>
  %2 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>
  %3 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<i32>
  %4 = stablehlo.tuple %2, %3 : tuple<tensor<f32>, tensor<i32>>
  return %1, %4 : tensor<i32>, tuple<tensor<f32>, tensor<i32>>
}

// iota along a unit dimension is 0; get_dimension_size of a static dimension is a constant; a
// reduce over no dimensions is its operand.
// CHECK-LABEL: func.func @iota_and_sizes
// CHECK-DAG: %[[ZEROS:.*]] = stablehlo.constant dense<0> : tensor<1x4xi32>
// CHECK-DAG: %[[FIVE:.*]] = stablehlo.constant dense<5> : tensor<i32>
// CHECK-NOT: stablehlo.reduce
// CHECK: return %[[ZEROS]], %[[FIVE]], %arg0
func.func @iota_and_sizes(%x: tensor<2x5xf32>) -> (tensor<1x4xi32>, tensor<i32>, tensor<2x5xf32>) {
  %0 = stablehlo.iota dim = 0 : tensor<1x4xi32>
  %1 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x5xf32>) -> tensor<i32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2x5xf32>
  return %0, %1, %2 : tensor<1x4xi32>, tensor<i32>, tensor<2x5xf32>
}

// An op whose result has a zero extent is an empty constant.
// CHECK-LABEL: func.func @zero_extent
// CHECK-NEXT: %[[EMPTY:.*]] = stablehlo.constant dense<> : tensor<0x3xf32>
// CHECK-NEXT: return %[[EMPTY]]
func.func @zero_extent(%x: tensor<0x3xf32>) -> tensor<0x3xf32> {
  %0 = stablehlo.exponential %x : tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// A value a while loop carries unchanged is captured from outside the loop instead.
// CHECK-LABEL: func.func @while_invariant
// CHECK: stablehlo.while(%[[I:.*]] = %{{.*}}) : tensor<i32>
// CHECK: stablehlo.add %[[I]], %arg1 : tensor<i32>
// CHECK-NEXT: stablehlo.return %{{.*}} : tensor<i32>
func.func @while_invariant(%n: tensor<i32>, %step: tensor<i32>) -> tensor<i32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %zero, %s = %step) : tensor<i32>, tensor<i32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %s : tensor<i32>
      stablehlo.return %next, %s : tensor<i32>, tensor<i32>
    }
  return %0#0 : tensor<i32>
}
