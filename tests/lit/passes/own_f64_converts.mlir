// shlo-own-f64-converts: a reduction whose input is a convert to f64 that other ops also use
// gets a convert of its own, of its input behind an optimization barrier (IREE's Vulkan target
// staged the shared converted tensor in workgroup memory and failed).  A convert used by the
// reduction alone stays.
// RUN: shlo-opt %s --shlo-own-f64-converts | filecheck %s

// CHECK-LABEL: func.func @shared
// CHECK: %[[SHARED:.*]] = stablehlo.convert %arg0 : (tensor<4x8xf32>) -> tensor<4x8xf64>
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %arg0 : tensor<4x8xf32>
// CHECK: %[[OWN:.*]] = stablehlo.convert %[[B]] : (tensor<4x8xf32>) -> tensor<4x8xf64>
// CHECK: stablehlo.reduce(%[[OWN]] init:
// CHECK: stablehlo.multiply %[[SHARED]], %[[SHARED]]
func.func @shared(%x: tensor<4x8xf32>) -> (tensor<4xf64>, tensor<4x8xf64>) {
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %0 = stablehlo.convert %x : (tensor<4x8xf32>) -> tensor<4x8xf64>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf64>, tensor<f64>) -> tensor<4xf64>
  %2 = stablehlo.multiply %0, %0 : tensor<4x8xf64>
  return %1, %2 : tensor<4xf64>, tensor<4x8xf64>
}

// CHECK-LABEL: func.func @alone
// CHECK-NOT: optimization_barrier
// CHECK: return
func.func @alone(%x: tensor<4x8xf32>) -> tensor<4xf64> {
  %z = stablehlo.constant dense<0.0> : tensor<f64>
  %0 = stablehlo.convert %x : (tensor<4x8xf32>) -> tensor<4x8xf64>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf64>, tensor<f64>) -> tensor<4xf64>
  return %1 : tensor<4xf64>
}
