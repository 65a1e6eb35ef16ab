// One pipeline mixing a StableHLO-world pass, an IREE-world pass, a Python pass and a pass only
// the native torch-mlir-opt has; the module crosses between them as bytecode.
// RUN: shlo-opt %s --pass-pipeline='builtin.module(inline, symbol-dce, func.func(iree-stablehlo-preprocessing-unfuse-batch-norm), shlo-op-stats, func.func(refback-generalize-tensor-concat))' --dump-pass-pipeline 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=SEGMENTS < %t.err
// RUN: filecheck %s --check-prefix=STATS < %t.err

// SEGMENTS:      [stablehlo] builtin.module(inline{default-pipeline=canonicalize {{.*}}}, symbol-dce)
// SEGMENTS-NEXT: [iree] builtin.module(func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))
// SEGMENTS-NEXT: [stablehlo] builtin.module(shlo-op-stats)
// SEGMENTS-NEXT: [torch-mlir-opt] builtin.module(func.func(refback-generalize-tensor-concat))

// The Python pass saw the IR after IREE's pass: no batch norm left, its arithmetic instead.
// STATS:     // shlo-op-stats @main:
// STATS-NOT: stablehlo.batch_norm_inference
// STATS:     stablehlo.sqrt

// CHECK-LABEL: func.func @main
// CHECK-NOT:     call
// CHECK-NOT:     stablehlo.batch_norm_inference
// CHECK:         stablehlo.sqrt
// CHECK-NOT:   func.func private @bn
func.func @main(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = call @bn(%x, %s) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func private @bn(%x: tensor<2x3xf32>, %s: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
