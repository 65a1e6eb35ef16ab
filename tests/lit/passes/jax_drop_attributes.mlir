// shlo-jax-drop-attributes removes what jax.export annotates for XLA: every mhlo.* attribute
// (module, arguments, results, ops), the module's jax.* ones and the explicit public
// visibility; jax.result_info, the result names, stays.  More than one device is refused.
// RUN: not shlo-opt %s --split-input-file --shlo-jax-drop-attributes 2>&1 | filecheck %s

// CHECK-LABEL: module @jit_f {
// CHECK-NEXT:    func.func @main(%{{.+}}: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result['y']"}) {
// CHECK-NEXT:      stablehlo.sine %{{.+}} : tensor<4xf32>
// CHECK-NEXT:      return
// CHECK-NOT:       mhlo.{{[a-z_]+}} =
// CHECK:         error: shlo-jax-drop-attributes: exported for 2 devices (mhlo.num_partitions); shlo runs one
module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}) -> (tensor<4xf32> {jax.result_info = "result['y']", mhlo.layout_mode = "default"}) {
    %0 = stablehlo.sine %arg0 {mhlo.frontend_attributes = {xla.sdy.sharding = "x"}} : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

module @jit_g attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}
