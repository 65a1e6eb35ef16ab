// Which function the interpreter runs (Api.cpp's evalModule and getMainFunction): a module
// without functions runs nothing and succeeds; else @main, else the only function; a module
// using quantized types is lowered first.
// RUN: shlo-translate --interpret --split-input-file %s | filecheck %s
// RUN: shlo-translate --interpret %s --split-input-file --interpreter-print-dense | filecheck %s --check-prefix=DENSE
// RUN: echo 'module {}' | shlo-translate --interpret | filecheck %s --allow-empty --check-prefix=NOTHING

// NOTHING-NOT: {{.}}
// CHECK-NOT: module
// CHECK: tensor<i32> {3}
// DENSE: dense<3> : tensor<i32>
module {
}

// -----

func.func @only_one() -> tensor<i32> {
  %0 = stablehlo.constant dense<3> : tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK: tensor<i32> {5}
// DENSE: dense<5> : tensor<i32>
func.func @helper() -> tensor<i32> {
  %0 = stablehlo.constant dense<4> : tensor<i32>
  return %0 : tensor<i32>
}
func.func @main() -> tensor<i32> {
  %0 = stablehlo.constant dense<5> : tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK: tensor<2xf32> {
// CHECK-NEXT: [1.000000e+00, 1.500000e+00]
// DENSE: dense<[1.000000e+00, 1.500000e+00]> : tensor<2xf32>
func.func @main() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.2, 1.6]> : tensor<2xf32>
  %1 = stablehlo.uniform_quantize %0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  %2 = stablehlo.uniform_dequantize %1 : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
