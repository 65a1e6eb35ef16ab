// refback-generalize-tensor-concat is compiled into the torch-mlir wheel's torch-mlir-opt but
// not registered in its Python bindings: shlo runs it there, as a flag or in a pipeline.
// RUN: shlo-opt %s --refback-generalize-tensor-concat | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(refback-generalize-tensor-concat))' | filecheck %s
// RUN: shlo-opt %s --refback-generalize-tensor-concat --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=WHERE
// RUN: not shlo-opt %s --refback-generalize-tensor-concat=no-such-option=1 2>&1 | filecheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @concat
// CHECK-NOT:     tensor.concat
// CHECK:         tensor.insert_slice %arg0
// CHECK:         tensor.insert_slice %arg1
// WHERE: [torch-mlir-opt] builtin.module(refback-generalize-tensor-concat)
// BAD: no such option no-such-option
func.func @concat(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  %0 = tensor.concat dim(0) %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
