// shlo-narrow-scatter-indices: i64 scatter indices clamped to [-1, the largest operand
// dimension they address] and converted to i32 (IREE failed to compile two windowed scatters
// sharing i64 indices).  The interpreter gives the same values before and after: 2**32 + 1,
// which a plain conversion would wrap to 1, and -2**32 stay out of bounds and are skipped.
// RUN: shlo-opt %s --split-input-file --shlo-narrow-scatter-indices | filecheck %s
// RUN: shlo-translate %s --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// RUN: shlo-opt %s --split-input-file --shlo-narrow-scatter-indices \
// RUN:   | shlo-translate --split-input-file --interpret 2>&1 | filecheck %s --check-prefix=VALUES --allow-empty
// VALUES-NOT: error

// CHECK-LABEL: func.func @two_sums
// CHECK: %[[LOW:.*]] = stablehlo.constant dense<-1> : tensor<i64>
// CHECK: %[[HIGH:.*]] = stablehlo.constant dense<4> : tensor<i64>
// CHECK: %[[CLAMPED:.*]] = stablehlo.clamp %[[LOW]], %{{.*}}, %[[HIGH]] : (tensor<i64>, tensor<5x1xi64>, tensor<i64>) -> tensor<5x1xi64>
// CHECK: %[[NARROW:.*]] = stablehlo.convert %[[CLAMPED]] : (tensor<5x1xi64>) -> tensor<5x1xi32>
// CHECK: "stablehlo.scatter"(%{{.*}}, %[[NARROW]], %{{.*}})
// CHECK: stablehlo.clamp
// CHECK: (tensor<4x2xf32>, tensor<5x1xi32>, tensor<5x2xf32>) -> tensor<4x2xf32>
func.func @two_sums() {
  %i = stablehlo.constant dense<[[3], [4294967297], [0], [3], [-4294967296]]> : tensor<5x1xi64>
  %zeros3 = stablehlo.constant dense<0.0> : tensor<4x3xf32>
  %zeros2 = stablehlo.constant dense<0.0> : tensor<4x2xf32>
  %u3 = stablehlo.constant dense<1.0> : tensor<5x3xf32>
  %u2 = stablehlo.constant dense<2.0> : tensor<5x2xf32>
  %a = "stablehlo.scatter"(%zeros3, %i, %u3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x3xf32>, tensor<5x1xi64>, tensor<5x3xf32>) -> tensor<4x3xf32>
  %b = "stablehlo.scatter"(%zeros2, %i, %u2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x2xf32>, tensor<5x1xi64>, tensor<5x2xf32>) -> tensor<4x2xf32>
  check.expect_almost_eq_const %a, dense<[[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 2.0, 2.0]]> : tensor<4x3xf32>
  check.expect_almost_eq_const %b, dense<[[2.0, 2.0], [0.0, 0.0], [0.0, 0.0], [4.0, 4.0]]> : tensor<4x2xf32>
  return
}

// -----

// i32 indices are left as they are.
// CHECK-LABEL: func.func @narrow_already
// CHECK-NOT: stablehlo.clamp
func.func @narrow_already() {
  %x = stablehlo.constant dense<0.0> : tensor<4xf32>
  %i = stablehlo.constant dense<[[2], [1]]> : tensor<2x1xi32>
  %u = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<4xf32>
  check.expect_almost_eq_const %0, dense<[0.0, 6.0, 5.0, 0.0]> : tensor<4xf32>
  return
}
