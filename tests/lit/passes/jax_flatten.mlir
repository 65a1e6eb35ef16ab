// shlo-jax-flatten turns a shape-polymorphic, two-platform JAX export (as jax.export writes it
// for platforms=["cpu", "cuda"] and a batch dimension "b") into one flat function for the cpu
// at the given argument types: platform index and dimension argument gone, shapes static,
// assertions checked and removed, the result names kept, JAX's annotations dropped.
// RUN: shlo-opt %s '--pass-pipeline=builtin.module(shlo-jax-flatten{types=tensor<4x3xf32>,tensor<4x2xf32>})' | filecheck %s
// RUN: not shlo-opt %s '--pass-pipeline=builtin.module(shlo-jax-flatten{types=tensor<4x3xf32>,tensor<5x2xf32>})' 2>&1 | filecheck %s --check-prefix=MISMATCH
// Without types, the symbolic shapes stay and the static-shape check refuses the module.
// RUN: not shlo-opt %s --shlo-jax-flatten 2>&1 | filecheck %s --check-prefix=SYMBOLIC

// CHECK-LABEL: module @jit_f {
// CHECK-NEXT:    func.func @main(%[[X:.+]]: tensor<4x3xf32>, %[[Y:.+]]: tensor<4x2xf32>)
// CHECK-SAME:      -> (tensor<3xf32> {jax.result_info = "result['s']"}, tensor<3x2xf32> {jax.result_info = "result['t'][0]"})
// CHECK-NOT:     custom_call
// CHECK-NOT:     case
// CHECK:         %[[T:.+]] = stablehlo.transpose %[[X]], dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[D:.+]] = stablehlo.dot_general %[[T]], %[[Y]], contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    return %{{.+}}, %[[D]]
// CHECK-NOT:   func.func
// MISMATCH: error: shlo-jax-shape-assertions: Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[1].shape[0] (= 5) and the specification 'b' (= 4).
// SYMBOLIC: error: shlo-jax-shape-assertions: a shape assertion depends on values known only at run time
module @jit_f attributes {jax.platforms = ["cpu", "cuda"], jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<?x3xf32>, %arg2: tensor<?x2xf32>) -> (tensor<3xf32> {jax.result_info = "result['s']"}, tensor<3x2xf32> {jax.result_info = "result['t'][0]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.get_dimension_size %arg2, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
    %2 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %3 = stablehlo.compare EQ, %1, %0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%3, %1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Found inconsistency between dimension size args[1].shape[0] (= {0}) and the specification 'b' (= {1}).", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
    %4:2 = call @_wrapped_jax_export_main(%arg0, %0, %arg1, %arg2) : (tensor<i32>, tensor<i32>, tensor<?x3xf32>, tensor<?x2xf32>) -> (tensor<3xf32>, tensor<3x2xf32>)
    return %4#0, %4#1 : tensor<3xf32>, tensor<3x2xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "_platform_index"}, %arg1: tensor<i32> {jax.global_constant = "b"}, %arg2: tensor<?x3xf32>, %arg3: tensor<?x2xf32>) -> (tensor<3xf32> {jax.result_info = "result['s']"}, tensor<3x2xf32> {jax.result_info = "result['t'][0]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c_1 = stablehlo.constant dense<3> : tensor<1xi32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.reshape %arg1 : (tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.concatenate %0, %c_1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %2 = stablehlo.dynamic_broadcast_in_dim %cst_2, %1, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
    %3 = stablehlo.multiply %arg2, %2 : tensor<?x3xf32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<?x3xf32>, tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
    %6 = "stablehlo.case"(%arg0) ({
      stablehlo.return %c_0 : tensor<i32>
    }, {
      stablehlo.return %c : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %8 = stablehlo.dot_general %5, %arg3, contracting_dims = [1] x [0] : (tensor<3x?xf32>, tensor<?x2xf32>) -> tensor<3x2xf32>
      stablehlo.return %8 : tensor<3x2xf32>
    }, {
      %8 = stablehlo.dot_general %5, %arg3, contracting_dims = [1] x [0] : (tensor<3x?xf32>, tensor<?x2xf32>) -> tensor<3x2xf32>
      stablehlo.return %8 : tensor<3x2xf32>
    }) : (tensor<i32>) -> tensor<3x2xf32>
    return %4, %7 : tensor<3xf32>, tensor<3x2xf32>
  }
}
