// shlo-jax-linalg refuses a LAPACK call that no portable algorithm replaces, naming it and what
// it computes at its location; shlo-check-support names each LAPACK call and says whether the
// jax profile rewrites it.
// RUN: not shlo-opt %s --shlo-jax-linalg 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not shlo-opt %s --shlo-check-support=target=interpreter 2>&1 | filecheck %s --check-prefix=SUPPORT

// ERR: jax_linalg_refused.mlir:[[# @LINE + 7]]:{{.*}}: error: shlo-jax-linalg: lapack_sgeev_ffi (general eigen-decomposition): only XLA:CPU runs it, and shlo has no portable replacement
// SUPPORT-DAG: jax_linalg_refused.mlir:[[# @LINE + 5]]:{{.*}}: error: interpreter: {{.*}}: lapack_sgetrf_ffi (LU decomposition): the jax profile rewrites it (shlo-jax-linalg)
// SUPPORT-DAG: jax_linalg_refused.mlir:[[# @LINE + 5]]:{{.*}}: error: interpreter: {{.*}}: lapack_sgeev_ffi (general eigen-decomposition): only XLA:CPU runs it, and shlo has no portable replacement
// SUPPORT-DAG: jax_linalg_refused.mlir:[[# @LINE + 5]]:{{.*}}: error: interpreter: {{.*}}: lapack_dgees_ffi (Schur decomposition): only XLA:CPU runs it
// SUPPORT: error: shlo-check-support: 3 unsupported for interpreter: lapack_dgees_ffi x1, lapack_sgeev_ffi x1, lapack_sgetrf_ffi x1
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf64>) -> (tensor<2xi32>, tensor<i32>, tensor<i32>) {
  %lu:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xi32>, tensor<i32>)
  %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xcomplex<f32>>, tensor<2x2xcomplex<f32>>, tensor<2xi32>)
  %1:5 = stablehlo.custom_call @lapack_dgees_ffi(%b) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<i32>)
  return %0#4, %lu#2, %1#4 : tensor<2xi32>, tensor<i32>, tensor<i32>
}
