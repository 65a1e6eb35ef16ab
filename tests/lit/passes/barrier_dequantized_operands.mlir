// shlo-barrier-dequantized-operands: a convolution or matmul operand computed elementwise from
// 8- or 16-bit integers (a dequantization) goes through an optimization barrier (IREE's Vulkan
// target computed the fused dequantization wrong).  Float operands stay.
// RUN: shlo-opt %s --shlo-barrier-dequantized-operands | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK: %[[DEQ:.*]] = stablehlo.multiply
// CHECK: %[[B:.*]] = stablehlo.optimization_barrier %[[DEQ]] : tensor<4x8xf32>
// CHECK: stablehlo.dot_general %[[B]], %arg1
// CHECK-NOT: optimization_barrier
func.func @main(%q: tensor<4x8xi8>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %s = stablehlo.constant dense<0.01> : tensor<4x8xf32>
  %0 = stablehlo.convert %q : (tensor<4x8xi8>) -> tensor<4x8xf32>
  %1 = stablehlo.multiply %0, %s : tensor<4x8xf32>
  %2 = stablehlo.dot_general %1, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}
