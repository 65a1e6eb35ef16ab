// RUN: shlo-opt %s --shlo-scalars-to-stablehlo | filecheck %s
// RUN: shlo-opt %s --shlo-scalars-to-stablehlo | shlo-translate --interpret --args="[dense<[2.0, 3.0]> : tensor<2xf32>, dense<0.5> : tensor<f32>, dense<3> : tensor<i64>]" | filecheck %s --check-prefix=VALUES

// torch-mlir's lowering of `x * (2 * s) - (n + 0.5)` where s and n are Python numbers passed as
// 0-d tensors: scalar tensor/arith ops, and a tensor-typed arith.constant.
// CHECK-LABEL: func.func @main
// CHECK-NOT: tensor.
// CHECK-NOT: arith.
// CHECK: stablehlo.convert %arg1 : (tensor<f32>) -> tensor<f64>
// CHECK: stablehlo.multiply %{{.*}}, %{{.*}} : tensor<f64>
// CHECK: stablehlo.reshape %{{.*}} : (tensor<f64>) -> tensor<1xf64>
// CHECK: stablehlo.reshape %arg2 : (tensor<i64>) -> tensor<1xi64>
// CHECK: stablehlo.constant dense<5.000000e-01> : tensor<1xf32>
// VALUES: tensor<2xf32>
// VALUES-NEXT: [-1.5{{0*}}e+00, -5.0{{0*}}e-01]
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<f32>, %arg2: tensor<i64>) -> tensor<2xf32> {
  %extracted = tensor.extract %arg1[] : tensor<f32>
  %0 = arith.extf %extracted : f32 to f64
  %two = arith.constant 2.0 : f64
  %doubled = arith.mulf %0, %two : f64
  %extracted_0 = tensor.extract %arg2[] : tensor<i64>
  %from_elements = tensor.from_elements %doubled : tensor<1xf64>
  %1 = stablehlo.convert %from_elements : (tensor<1xf64>) -> tensor<1xf32>
  %2 = stablehlo.reshape %1 : (tensor<1xf32>) -> tensor<f32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %4 = stablehlo.multiply %arg0, %3 : tensor<2xf32>
  %from_elements_1 = tensor.from_elements %extracted_0 : tensor<1xi64>
  %5 = stablehlo.convert %from_elements_1 : (tensor<1xi64>) -> tensor<1xf32>
  %half = arith.constant dense<5.000000e-01> : tensor<1xf32>
  %6 = stablehlo.add %5, %half : tensor<1xf32>
  %7 = stablehlo.reshape %6 : (tensor<1xf32>) -> tensor<f32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %9 = stablehlo.subtract %4, %8 : tensor<2xf32>
  return %9 : tensor<2xf32>
}
