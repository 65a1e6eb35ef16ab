// RUN: shlo-opt %s --split-input-file --verify-diagnostics --shlo-check-support=target=luminal
// RUN: not shlo-opt %s --split-input-file --shlo-check-support=target=tpu 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not shlo-opt %s --split-input-file --shlo-check-support 2>&1 | filecheck %s --check-prefix=NONE
// RUN: not shlo-opt %s --split-input-file --shlo-check-support=target=luminal 2>&1 | filecheck %s --check-prefix=EXIT

// TARGET: error: shlo-check-support: target must be one of iree, interpreter, luminal: not 'tpu'
// NONE: error: shlo-check-support: target must be one of iree, interpreter, luminal: none was given
// EXIT: error: shlo-check-support: 7 unsupported for luminal: element type i32 x1, func.call x1, stablehlo.constant x1, stablehlo.convolution x1, stablehlo.gather x1, stablehlo.reduce x1, structure x1

// Everything Luminal's importer would stop at, reported in one run.
// expected-error@unknown {{shlo-check-support: 7 unsupported for luminal: element type i32 x1, func.call x1, stablehlo.constant x1, stablehlo.convolution x1, stablehlo.gather x1, stablehlo.reduce x1, structure x1}}
// expected-error@below {{luminal: Luminal treats all data as f32; the signature uses i32}}
func.func @main(%x: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %i: tensor<2x1xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{luminal: only splat (single-value) dense literals are supported}}
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  // expected-error@+1 {{luminal: convolution must be NCHW x OIHW -> NCHW}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  // expected-error@+1 {{luminal: reduce body must be one of add/or/maximum, found stablehlo.multiply}}
  %1 = stablehlo.reduce(%c init: %zero) applies stablehlo.multiply across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  // expected-error@+1 {{luminal: op 'stablehlo.gather' is not supported}}
  %2 = "stablehlo.gather"(%c, %i) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<2x1xi32>) -> tensor<2xf32>
  // expected-error@+1 {{luminal: calls are not supported; inline first}}
  %3 = call @helper(%c) : (tensor<4xf32>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// expected-error@+1 {{luminal: Luminal reads only the first function; flatten with shlo-flatten{profile=luminal} first}}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// What Luminal takes passes: NCHW convolution, max pooling, add reductions, splat constants.
func.func @supported(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %1 = "stablehlo.reduce_window"(%0, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>} : (tensor<1x4x6x6xf32>, tensor<f32>) -> tensor<1x4x3x3xf32>
  %2 = stablehlo.reduce(%1 init: %zero) applies stablehlo.add across dimensions = [2, 3] : (tensor<1x4x3x3xf32>, tensor<f32>) -> tensor<1x4xf32>
  return %2 : tensor<1x4xf32>
}

// -----

// expected-error@unknown {{shlo-check-support: 1 unsupported for luminal: element type f16 x1}}
// expected-error@+1 {{luminal: Luminal treats all data as f32; the signature uses f16}}
func.func @half(%x: tensor<4xf16>) -> tensor<4xf16> {
  return %x : tensor<4xf16>
}
