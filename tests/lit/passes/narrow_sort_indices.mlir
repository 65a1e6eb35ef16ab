// RUN: shlo-opt %s --split-input-file --shlo-narrow-sort-indices | filecheck %s

// torch.topk as torch-mlir exports it: the indices are sorted as i32 and widened after the slice.
// CHECK-LABEL: func.func @topk
// CHECK:         %[[IOTA:.+]] = stablehlo.iota dim = 1 : tensor<2x10xi32>
// CHECK:         %[[SORT:.+]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]])
// CHECK:         ^bb0(%{{.+}}: tensor<f32>, %{{.+}}: tensor<f32>, %{{.+}}: tensor<i32>, %{{.+}}: tensor<i32>):
// CHECK:         (tensor<2x10xf32>, tensor<2x10xi32>) -> (tensor<2x10xf32>, tensor<2x10xi32>)
// CHECK:         %[[IDX:.+]] = stablehlo.slice %[[SORT]]#1 [0:2, 0:3] : (tensor<2x10xi32>) -> tensor<2x3xi32>
// CHECK:         %[[WIDE:.+]] = stablehlo.convert %[[IDX]] : (tensor<2x3xi32>) -> tensor<2x3xi64>
// CHECK:         return %{{.+}}, %[[WIDE]] : tensor<2x3xf32>, tensor<2x3xi64>
func.func @topk(%arg0: tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %0 = stablehlo.iota dim = 1 : tensor<2x10xi64>
  %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 1 : i64, is_stable = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i64>, %d: tensor<i64>):
    %4 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  }) : (tensor<2x10xf32>, tensor<2x10xi64>) -> (tensor<2x10xf32>, tensor<2x10xi64>)
  %2 = stablehlo.slice %1#0 [0:2, 0:3] : (tensor<2x10xf32>) -> tensor<2x3xf32>
  %3 = stablehlo.slice %1#1 [0:2, 0:3] : (tensor<2x10xi64>) -> tensor<2x3xi64>
  return %2, %3 : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// Indices used by anything but a slice are left alone.
// CHECK-LABEL: func.func @argsort_used_whole
// CHECK:         stablehlo.iota dim = 0 : tensor<8xi64>
// CHECK-NOT:     stablehlo.convert
func.func @argsort_used_whole(%arg0: tensor<8xf32>) -> tensor<8xi64> {
  %0 = stablehlo.iota dim = 0 : tensor<8xi64>
  %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i64>, %d: tensor<i64>):
    %4 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %4 : tensor<i1>
  }) : (tensor<8xf32>, tensor<8xi64>) -> (tensor<8xf32>, tensor<8xi64>)
  return %1#1 : tensor<8xi64>
}
