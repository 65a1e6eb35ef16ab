// Every op the interpreter cannot evaluate (shlo.interpreter.UNSUPPORTED), run on the pinned
// interpreter: each error names the op at its location, with the pipeline that decomposes it
// where there is one.  shlo-check-support{target=interpreter} flags the same ops without
// running anything.
// RUN: not shlo-translate --interpret -split-input-file %s 2>&1 | filecheck %s
// RUN: shlo-opt %s --verify-diagnostics --shlo-check-support=target=interpreter

// expected-error@unknown {{shlo-check-support: 16 unsupported for interpreter: chlo.erf x1, stablehlo.batch_norm_grad x1, stablehlo.batch_norm_inference x1, stablehlo.batch_norm_training x1, stablehlo.broadcast x1, stablehlo.cholesky x1, stablehlo.create_token x1, stablehlo.custom_call x1, stablehlo.dot x1, stablehlo.einsum x1, stablehlo.partition_id x1, stablehlo.real_dynamic_slice x1, stablehlo.rng x1, stablehlo.rng_bit_generator x1, stablehlo.torch_index_select x1, stablehlo.unary_einsum x1}}

func.func @batch_norm_inference() -> tensor<2x2xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %s = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @batch_norm_inference: the interpreter does not support stablehlo.batch_norm_inference; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))'
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.batch_norm_inference; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))'}}
  %r = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @batch_norm_training() -> tensor<2x2xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %s = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:10: error: @batch_norm_training: the interpreter does not support stablehlo.batch_norm_training; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))'
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.batch_norm_training; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(iree-stablehlo-preprocessing-unfuse-batch-norm))'}}
  %r:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0 : tensor<2x2xf32>
}

// -----

func.func @batch_norm_grad() -> tensor<2x2xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %s = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:10: error: @batch_norm_grad: the interpreter does not support stablehlo.batch_norm_grad
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.batch_norm_grad}}
  %r:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %x) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0 : tensor<2x2xf32>
}

// -----

func.func @dot() -> tensor<2x2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @dot: the interpreter does not support stablehlo.dot; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))'
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.dot; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))'}}
  %r = "stablehlo.dot"(%a, %a) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @broadcast() -> tensor<3x2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @broadcast: the interpreter does not support stablehlo.broadcast; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))'
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.broadcast; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))'}}
  %r = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 3>} : (tensor<2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

func.func @create_token() -> !stablehlo.token {
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @create_token: the interpreter does not support stablehlo.create_token; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))'
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.create_token; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))'}}
  %r = stablehlo.create_token : !stablehlo.token
  return %r : !stablehlo.token
}

// -----

func.func @cholesky() -> tensor<2x2xf32> {
  %a = stablehlo.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @cholesky: the interpreter does not support stablehlo.cholesky
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.cholesky}}
  %r = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @einsum() -> tensor<2x2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @einsum: the interpreter does not support stablehlo.einsum
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.einsum}}
  %r = "stablehlo.einsum"(%a, %a) {einsum_config = "ab,bc->ac"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @unary_einsum() -> tensor<2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @unary_einsum: the interpreter does not support stablehlo.unary_einsum
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.unary_einsum}}
  %r = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->a"} : (tensor<2x2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @torch_index_select() -> tensor<2x2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %i = stablehlo.constant dense<[0, 1]> : tensor<2xi32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @torch_index_select: the interpreter does not support stablehlo.torch_index_select
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.torch_index_select}}
  %r = "stablehlo.torch_index_select"(%a, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<2x2xf32>, tensor<2xi32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

func.func @rng() -> tensor<4xf32> {
  %a = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %s = stablehlo.constant dense<4> : tensor<1xi64>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @rng: the interpreter does not support stablehlo.rng
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.rng}}
  %r = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @rng_bit_generator() -> tensor<4xui32> {
  %s = stablehlo.constant dense<1> : tensor<2xui64>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:12: error: @rng_bit_generator: the interpreter does not support stablehlo.rng_bit_generator
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.rng_bit_generator}}
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  return %r : tensor<4xui32>
}

// -----

func.func @real_dynamic_slice() -> tensor<1xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  %s = stablehlo.constant dense<0> : tensor<1xi64>
  %l = stablehlo.constant dense<1> : tensor<1xi64>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @real_dynamic_slice: the interpreter does not support stablehlo.real_dynamic_slice
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.real_dynamic_slice}}
  %r = stablehlo.real_dynamic_slice %a, %s, %l, %l : (tensor<2xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xf32>
  return %r : tensor<1xf32>
}

// -----

func.func @custom_call() -> tensor<2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @custom_call: the interpreter does not support stablehlo.custom_call
  // expected-error@+1 {{interpreter: the interpreter does not support stablehlo.custom_call}}
  %r = stablehlo.custom_call @my_kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @erf() -> tensor<2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @erf: the interpreter does not support chlo.erf; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo))'
  // expected-error@+1 {{interpreter: the interpreter does not support chlo.erf; decompose it first with shlo-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo))'}}
  %r = chlo.erf %a : tensor<2xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// Collectives and process ids need the process grid of interpreter.run_parallel.
func.func @partition_id() -> tensor<ui32> {
  // CHECK: unsupported_ops.mlir:[[# @LINE + 2]]:8: error: @partition_id: stablehlo.partition_id runs only under interpreter.run_parallel
  // expected-error@+1 {{interpreter: stablehlo.partition_id runs only under interpreter.run_parallel}}
  %r = stablehlo.partition_id : tensor<ui32>
  return %r : tensor<ui32>
}
