// shlo-jax-shape-assertions checks the shape assertions of a shape-polymorphic JAX export at
// the static argument types stablehlo-refine-arguments gives @main: all hold, and they are
// removed; one fails, and the pass fails with its own message, {N} filled in, at its op.  The
// code after the assertions is not refined first (here it would fail on the mismatched
// contraction before any assertion could speak).
// RUN: shlo-opt %s '--pass-pipeline=builtin.module(stablehlo-refine-arguments{types=tensor<4x3xf32>,tensor<4x2xf32>}, shlo-jax-shape-assertions)' | filecheck %s
// RUN: not shlo-opt %s '--pass-pipeline=builtin.module(stablehlo-refine-arguments{types=tensor<4x3xf32>,tensor<5x2xf32>}, shlo-jax-shape-assertions)' 2>&1 | filecheck %s --check-prefix=MISMATCH
// RUN: not shlo-opt %s '--pass-pipeline=builtin.module(stablehlo-refine-arguments{types=tensor<0x3xf32>,tensor<0x2xf32>}, shlo-jax-shape-assertions)' 2>&1 | filecheck %s --check-prefix=EMPTY
// Without static types the conditions are not known before run time: refused, not dropped.
// RUN: not shlo-opt %s --shlo-jax-shape-assertions 2>&1 | filecheck %s --check-prefix=DYNAMIC

// CHECK-LABEL: func.func public @main
// CHECK-NOT:     @shape_assertion
// CHECK:         call @_wrapped_jax_export_main
// MISMATCH: jax_shape_assertions.mlir:[[# @LINE + 12]]:5: error: shlo-jax-shape-assertions: Found inconsistency between dimension size args[1].shape[0] (= 5) and the specification 'b' (= 4).
// MISMATCH-NOT: error: shlo-jax-shape-assertions
// EMPTY: jax_shape_assertions.mlir:[[# @LINE + 8]]:5: error: shlo-jax-shape-assertions: Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = 0.
// DYNAMIC: error: shlo-jax-shape-assertions: a shape assertion depends on values known only at run time
module @jit_f attributes {jax.uses_shape_polymorphism = true} {
  func.func public @main(%arg0: tensor<?x3xf32>, %arg1: tensor<?x2xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.get_dimension_size %arg1, dim = 0 : (tensor<?x2xf32>) -> tensor<i32>
    %2 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%2, %0) {api_version = 2 : i32, error_message = "Expected value >= 1 for dimension variable 'b'. Obtained dimension variables: 'b' = {0}.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %3 = stablehlo.compare EQ, %1, %0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%3, %1, %0) {api_version = 2 : i32, error_message = "Found inconsistency between dimension size args[1].shape[0] (= {0}) and the specification 'b' (= {1}).", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
    %4 = call @_wrapped_jax_export_main(%0, %arg0, %arg1) : (tensor<i32>, tensor<?x3xf32>, tensor<?x2xf32>) -> tensor<3x2xf32>
    return %4 : tensor<3x2xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x3xf32>, %arg2: tensor<?x2xf32>) -> (tensor<3x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
    %1 = stablehlo.dot_general %0, %arg2, contracting_dims = [1] x [0] : (tensor<3x?xf32>, tensor<?x2xf32>) -> tensor<3x2xf32>
    return %1 : tensor<3x2xf32>
  }
}
