// RUN: shlo-opt %s --shlo-op-stats 2>&1 >/dev/null | filecheck %s
// RUN: shlo-opt %s --shlo-op-stats=format=json 2>&1 >/dev/null | filecheck %s --check-prefix=JSON
// RUN: shlo-opt %s --shlo-op-stats | filecheck %s --check-prefix=UNCHANGED
// RUN: not shlo-opt %s --shlo-op-stats=format=xml 2>&1 | filecheck %s --check-prefix=BADFORMAT
// RUN: not shlo-opt %s --shlo-op-stats=colour=red 2>&1 | filecheck %s --check-prefix=BADOPTION

// CHECK-LABEL: // shlo-op-stats @main: 5 ops, 44 constant bytes, 0 FLOPs in dots and convolutions
// CHECK-NEXT:  //   func.return {{ +}}1
// CHECK-NEXT:  //   stablehlo.add {{ +}}2
// CHECK-NEXT:  //   stablehlo.constant {{ +}}2
// CHECK-LABEL: // shlo-op-stats @helper: 2 ops, 0 constant bytes, 0 FLOPs
// CHECK-NEXT:  //   func.return {{ +}}1
// CHECK-NEXT:  //   stablehlo.negate {{ +}}1

// JSON:      "main": {
// JSON-NEXT:   "ops": {
// JSON-NEXT:     "func.return": 1,
// JSON-NEXT:     "stablehlo.add": 2,
// JSON-NEXT:     "stablehlo.constant": 2
// JSON-NEXT:   },
// JSON-NEXT:   "constant_bytes": 44,
// JSON-NEXT:   "matmul_flops": 0

// 2 x 8x16 results x 32-deep dot (8192), 2 x 2x4x5 results x 6-deep, batched (480), a 3x3
// convolution of 2 to 4 features on a 1x4x4 output: 2 x 64 outputs x 18 (2304).
// CHECK-LABEL: // shlo-op-stats @matmuls: 4 ops, 0 constant bytes, 10976 FLOPs

// UNCHANGED: %c = stablehlo.constant dense<1> : tensor<4xi64>
// BADFORMAT: op_stats.mlir:0:0: error: shlo-op-stats: format must be one of text, json, not 'xml'
// BADOPTION: shlo-opt: pass 'shlo-op-stats' has no option 'colour' (options: format)

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<1> : tensor<4xi64>
  %w = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.add %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func private @matmuls(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %c: tensor<2x4x6xf32>, %d: tensor<2x6x5xf32>, %x: tensor<1x2x6x6xf32>, %k: tensor<4x2x3x3xf32>) -> (tensor<8x16xf32>, tensor<2x4x5xf32>, tensor<1x4x4x4xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %1 = stablehlo.dot_general %c, %d, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  %2 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1, %2 : tensor<8x16xf32>, tensor<2x4x5xf32>, tensor<1x4x4x4xf32>
}
