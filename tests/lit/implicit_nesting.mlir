// Pass flags nest as mlir-opt nests them: a pass that runs on functions only, given as a flag,
// runs on each function, whether its restriction shows when it is added (stablehlo's passes)
// or only when it runs (IREE's StableHLO canonicalizer).
// RUN: shlo-opt %s --iree-stablehlo-canonicalize --dump-pass-pipeline 2>&1 | filecheck %s
// RUN: shlo-opt %s --stablehlo-legalize-deprecated-ops --dump-pass-pipeline 2>&1 | filecheck %s --check-prefix=DEPRECATED

// CHECK: [iree] builtin.module(func.func(iree-stablehlo-canonicalize))
// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %[[C:.+]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    return %[[C]]
// DEPRECATED: [stablehlo] builtin.module(func.func(stablehlo-legalize-deprecated-ops{fail-on-unused=true}))
// DEPRECATED: stablehlo.broadcast_in_dim
func.func @f() -> tensor<f32> {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.add %0, %0 : tensor<f32>
  return %1 : tensor<f32>
}

func.func @g(%x: tensor<2xf32>) -> tensor<3x2xf32> {
  %0 = "stablehlo.broadcast"(%x) {broadcast_sizes = array<i64: 3>} : (tensor<2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
