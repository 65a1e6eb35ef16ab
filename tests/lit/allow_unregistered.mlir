// RUN: not shlo-opt %s 2>&1 | filecheck %s --check-prefix=REJECT
// RUN: shlo-opt %s --allow-unregistered-dialect | filecheck %s
// RUN: shlo-opt %s -allow-unregistered-dialect --canonicalize | filecheck %s

// REJECT: allow_unregistered.mlir:[[# @LINE + 4]]:15: error: operation being parsed with an unregistered dialect
// CHECK-LABEL: func.func @f
// CHECK: "my.op"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "my.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
