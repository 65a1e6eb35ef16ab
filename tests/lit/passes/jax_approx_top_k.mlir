// shlo-jax-approx-top-k: JAX's ApproxTopK custom call as the exact stable sort XLA:CPU runs,
// with the call's own comparator (here approx_min_k's LT), sliced to the result's size.
// IREE took the call as a maximum whatever the comparator: approx_min_k gave the largest.
// RUN: shlo-opt %s --shlo-jax-approx-top-k --symbol-dce | filecheck %s --check-prefix=IR
// RUN: shlo-opt %s --shlo-jax-approx-top-k --symbol-dce --shlo-stable-sort | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="2x6xf32=[5 1 4 1 3 9][2 2 2 0 7 2]" | filecheck %s

// IR-LABEL: func.func public @main
// IR: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<2x6xi32>
// IR: %[[SORT:.*]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]]) <{dimension = 1 : i64, is_stable = true}>
// IR: stablehlo.compare LT
// IR: stablehlo.slice %[[SORT]]#0 [0:2, 0:3]
// IR: stablehlo.slice %[[SORT]]#1 [0:2, 0:3]
// IR-NOT: ApproxTopK
// IR-NOT: @top_k_lt_f32_comparator
// CHECK: 2x3xf32=[1 1 3][0 2 2]
// CHECK: 2x3xi32=[1 3 4][3 0 1]
module @jit_approx_min_k {
  func.func private @top_k_lt_f32_comparator(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> tensor<i1> {
    %0 = stablehlo.compare LT, %arg0, %arg1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %0 : tensor<i1>
  }
  func.func public @main(%arg0: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
    %0 = stablehlo.iota dim = 1 : tensor<2x6xi32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1:2 = stablehlo.custom_call @ApproxTopK(%arg0, %0, %cst, %c) {backend_config = "", called_computations = [@top_k_lt_f32_comparator], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 3 : i64}} : (tensor<2x6xf32>, tensor<2x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
    return %1#0, %1#1 : tensor<2x3xf32>, tensor<2x3xi32>
  }
}
