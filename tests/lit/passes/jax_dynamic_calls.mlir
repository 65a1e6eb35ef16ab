// shlo-jax-dynamic-calls: a shape-polymorphic export's `stablehlo.dynamic_top_k`, once its k is
// a constant, as `chlo.top_k` with static result types (the function's signature with them);
// the dynamic random bit generator, whose bits are XLA's own, refused by name.
// RUN: shlo-opt %s --split-input-file --shlo-jax-dynamic-calls --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<4x2xf32>, tensor<4x2xi32>)
// CHECK: %[[V:.*]], %[[I:.*]] = chlo.top_k(%arg0, k = 2) : tensor<4x3xf32> -> (tensor<4x2xf32>, tensor<4x2xi32>)
// CHECK: return %[[V]], %[[I]]
// CHECK-NOT: dynamic_top_k
func.func @main(%arg0: tensor<4x3xf32>) -> (tensor<4x?xf32>, tensor<4x?xi32>) {
  %k = stablehlo.constant dense<2> : tensor<i32>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg0, %k) {api_version = 2 : i32} : (tensor<4x3xf32>, tensor<i32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
  return %0#0, %0#1 : tensor<4x?xf32>, tensor<4x?xi32>
}

// -----

func.func @main(%arg0: tensor<4x3xf32>, %k: tensor<i32>) -> (tensor<4x?xf32>, tensor<4x?xi32>) {
  // expected-error @+1 {{shlo-jax-dynamic-calls: stablehlo.dynamic_top_k: k is known only at run time; give @main static types}}
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg0, %k) {api_version = 2 : i32} : (tensor<4x3xf32>, tensor<i32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
  return %0#0, %0#1 : tensor<4x?xf32>, tensor<4x?xi32>
}

// -----

func.func @main(%state: tensor<2xui64>) -> tensor<2x4xui32> {
  %shape = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  // expected-error @+1 {{shlo-jax-dynamic-calls: stablehlo.dynamic_rng_bit_generator: its bits are XLA's own (the DEFAULT algorithm is implementation-defined), which no other consumer reproduces}}
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%state, %shape) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<2x4xui32>)
  return %0#1 : tensor<2x4xui32>
}
