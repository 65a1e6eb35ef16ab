// shlo-jax-platform fixes JAX's platform index argument of a multi-platform export to the
// position of one platform in jax.platforms and drops the argument; canonicalize then folds
// the stablehlo.case that picked each platform's code.
// RUN: shlo-opt %s --split-input-file '--pass-pipeline=builtin.module(shlo-jax-platform, canonicalize)' | filecheck %s
// RUN: shlo-opt %s --split-input-file '--pass-pipeline=builtin.module(shlo-jax-platform{platform=cuda}, canonicalize)' | filecheck %s --check-prefix=CUDA
// RUN: not shlo-opt %s --split-input-file '--pass-pipeline=builtin.module(shlo-jax-platform{platform=tpu})' 2>&1 | filecheck %s --check-prefix=TPU

// CHECK-LABEL: func.func public @main
// CHECK-SAME:    (%[[X:.+]]: tensor<4xf32> {jax.arg_info = "x"})
// CHECK-SAME:    -> (tensor<4xf32> {jax.result_info = "result"})
// CHECK-NEXT:    %[[Y:.+]] = stablehlo.cosine %[[X]]
// CHECK-NEXT:    return %[[Y]]
// CUDA-LABEL: func.func public @main
// CUDA-NEXT:    stablehlo.sine
// TPU: error: shlo-jax-platform: exported for cuda, cpu, not for tpu
module @jit_f attributes {jax.platforms = ["cuda", "cpu"]} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<4xf32> {jax.arg_info = "x"}) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.case"(%arg0) ({
      %1 = stablehlo.sine %arg1 : tensor<4xf32>
      stablehlo.return %1 : tensor<4xf32>
    }, {
      %1 = stablehlo.cosine %arg1 : tensor<4xf32>
      stablehlo.return %1 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// A single-platform export has no platform index: the module is left as it is.
// CHECK-LABEL: func.func public @main
// CHECK-SAME:    (%{{.+}}: tensor<i32>, %{{.+}}: tensor<4xf32>)
// CUDA-LABEL: func.func public @main
module @jit_g attributes {jax.platforms = ["cpu"]} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    return %arg1 : tensor<4xf32>
  }
}
