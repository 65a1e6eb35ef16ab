// stablehlo-aggressive-simplification is compiled into the torch-mlir wheel's torch-mlir-opt but
// not registered in its Python bindings: shlo runs it there, as a flag or in a pipeline.
// RUN: shlo-opt %s --stablehlo-aggressive-simplification | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-aggressive-simplification))' | filecheck %s
// RUN: shlo-opt %s --stablehlo-aggressive-simplification --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=WHERE
// RUN: not shlo-opt %s --stablehlo-aggressive-simplification=fold-op-element-limit=x 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @add_zero
// CHECK-NEXT:    return %arg0
// WHERE: [torch-mlir-opt] builtin.module(stablehlo-aggressive-simplification)
// BAD: error
func.func @add_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %0 = stablehlo.add %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
}
