// RUN: shlo-opt %s --inline --symbol-dce --canonicalize | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(inline, symbol-dce, canonicalize)' | filecheck %s

// The flatten pipeline made of upstream passes (inline, symbol-dce, canonicalize: what
// `shlo.api.flatten` runs), as flags and as a pipeline.  The Python pass `shlo-flatten` has its
// own test, tests/lit/passes/flatten.mlir.
// A public entry point calling through two levels of private functions, plus a dead function:
// flattening leaves one function with no calls.

// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:     call
// CHECK:         %[[SQ:.+]] = stablehlo.multiply %[[X]], %[[X]] : tensor<4xf32>
// CHECK:         %[[SUM:.+]] = stablehlo.add %[[SQ]], %[[X]] : tensor<4xf32>
// CHECK:         return
// CHECK-NOT:   func.func
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square_plus(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func private @square_plus(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.add %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func private @square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func private @never_called(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
