// shlo-jax-scatter-dims transposes a scatter's operand so that its indexed dimensions lead, in
// index-vector order, and its result back: the form IREE lowers.  Scatters already in that
// form, and those with an indexed dimension that is a window (not inserted), stay as they are.
// RUN: shlo-opt %s --split-input-file '--pass-pipeline=builtin.module(shlo-jax-scatter-dims)' | filecheck %s

// x.at[:, i, j].set(u) with a batch of index pairs: dimensions 1 and 2 indexed.
// CHECK-LABEL: func.func @middle_and_last
// CHECK-SAME:    (%[[X:.+]]: tensor<5x6x7xf32>, %[[I:.+]]: tensor<2x2x2xi32>, %[[U:.+]]: tensor<5x2x2xf32>)
// CHECK-NEXT:    %[[T:.+]] = stablehlo.transpose %[[X]], dims = [1, 2, 0] : (tensor<5x6x7xf32>) -> tensor<6x7x5xf32>
// CHECK-NEXT:    %[[S:.+]] = "stablehlo.scatter"(%[[T]], %[[I]], %[[U]])
// CHECK-SAME:    update_window_dims = [0], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2
// CHECK:         (tensor<6x7x5xf32>, tensor<2x2x2xi32>, tensor<5x2x2xf32>) -> tensor<6x7x5xf32>
// CHECK-NEXT:    %[[B:.+]] = stablehlo.transpose %[[S]], dims = [2, 0, 1] : (tensor<6x7x5xf32>) -> tensor<5x6x7xf32>
// CHECK-NEXT:    return %[[B]]
func.func @middle_and_last(%x: tensor<5x6x7xf32>, %i: tensor<2x2x2xi32>, %u: tensor<5x2x2xf32>) -> tensor<5x6x7xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1, 2], scatter_dims_to_operand_dims = [1, 2], index_vector_dim = 2>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<5x6x7xf32>, tensor<2x2x2xi32>, tensor<5x2x2xf32>) -> tensor<5x6x7xf32>
  return %0 : tensor<5x6x7xf32>
}

// -----

// One index vector in reverse order (dimension 2, then 0): the transpose follows the index
// vector's order.
// CHECK-LABEL: func.func @reversed
// CHECK:         stablehlo.transpose %{{.+}}, dims = [2, 0, 1] : (tensor<4x2x3xi32>) -> tensor<3x4x2xi32>
// CHECK:         inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]
// CHECK:         (tensor<3x4x2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3x4x2xi32>
// CHECK:         stablehlo.transpose %{{.+}}, dims = [1, 2, 0] : (tensor<3x4x2xi32>) -> tensor<4x2x3xi32>
func.func @reversed(%x: tensor<4x2x3xi32>, %i: tensor<2xi32>, %u: tensor<2xi32>) -> tensor<4x2x3xi32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0, 2], scatter_dims_to_operand_dims = [2, 0]>, unique_indices = false}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %1 = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) : (tensor<4x2x3xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x2x3xi32>
  return %0 : tensor<4x2x3xi32>
}

// -----

// Already leading, and an indexed dimension that is a window of the update: left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     stablehlo.transpose
// CHECK:         scatter_dims_to_operand_dims = [0]
// CHECK-NOT:     stablehlo.transpose
// CHECK:         update_window_dims = [0, 1], scatter_dims_to_operand_dims = [1]
// CHECK-NOT:     stablehlo.transpose
func.func @left_alone(%x: tensor<4x5xf32>, %i: tensor<1xi32>, %u: tensor<5xf32>, %w: tensor<4x2xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<4x5xf32>, tensor<1xi32>, tensor<5xf32>) -> tensor<4x5xf32>
  %1 = "stablehlo.scatter"(%x, %i, %w) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], scatter_dims_to_operand_dims = [1]>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<4x5xf32>, tensor<1xi32>, tensor<4x2xf32>) -> tensor<4x5xf32>
  return %0, %1 : tensor<4x5xf32>, tensor<4x5xf32>
}
