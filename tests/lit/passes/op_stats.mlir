// RUN: shlo-opt %s --shlo-op-stats 2>&1 >/dev/null | filecheck %s
// RUN: shlo-opt %s --shlo-op-stats=format=json 2>&1 >/dev/null | filecheck %s --check-prefix=JSON
// RUN: shlo-opt %s --shlo-op-stats | filecheck %s --check-prefix=UNCHANGED
// RUN: not shlo-opt %s --shlo-op-stats=format=xml 2>&1 | filecheck %s --check-prefix=BADFORMAT
// RUN: not shlo-opt %s --shlo-op-stats=colour=red 2>&1 | filecheck %s --check-prefix=BADOPTION

// CHECK-LABEL: // shlo-op-stats @main: 5 ops, 44 constant bytes
// CHECK-NEXT:  //   func.return {{ +}}1
// CHECK-NEXT:  //   stablehlo.add {{ +}}2
// CHECK-NEXT:  //   stablehlo.constant {{ +}}2
// CHECK-LABEL: // shlo-op-stats @helper: 2 ops, 0 constant bytes
// CHECK-NEXT:  //   func.return {{ +}}1
// CHECK-NEXT:  //   stablehlo.negate {{ +}}1

// JSON:      "main": {
// JSON-NEXT:   "ops": {
// JSON-NEXT:     "func.return": 1,
// JSON-NEXT:     "stablehlo.add": 2,
// JSON-NEXT:     "stablehlo.constant": 2
// JSON-NEXT:   },
// JSON-NEXT:   "constant_bytes": 44

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
