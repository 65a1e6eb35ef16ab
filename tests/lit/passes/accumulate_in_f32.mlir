// shlo-accumulate-in-f32: f16/bf16 dot_general and convolution get an f32 result, and an f16/bf16
// sum is computed in f32, each converted back once; f32 ones, and reductions other than one-input
// sums, are left as they are.  iree-compile takes the mixed-precision form.
// RUN: shlo-opt %s --shlo-accumulate-in-f32 | filecheck %s
// RUN: shlo-opt %s --shlo-accumulate-in-f32 | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o /dev/null

// CHECK-LABEL: func.func @main
// CHECK: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<4x16xf16>, tensor<16x4xf16>) -> tensor<4x4xf32>
// CHECK: %[[N:.*]] = stablehlo.convert %[[D]] : (tensor<4x4xf32>) -> tensor<4x4xf16>
// CHECK: stablehlo.convolution({{.*}}) {{.*}} -> tensor<1x2x2x2xf32>
// CHECK: stablehlo.convert {{.*}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xbf16>
// CHECK: stablehlo.dot_general %arg4, %arg4, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @main(%a: tensor<4x16xf16>, %b: tensor<16x4xf16>, %x: tensor<1x2x4x4xbf16>, %w: tensor<2x2x3x3xbf16>, %c: tensor<4x4xf32>) -> (tensor<4x4xf16>, tensor<1x2x2x2xbf16>, tensor<4x4xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x16xf16>, tensor<16x4xf16>) -> tensor<4x4xf16>
  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x4x4xbf16>, tensor<2x2x3x3xbf16>) -> tensor<1x2x2x2xbf16>
  %2 = stablehlo.dot_general %c, %c, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2 : tensor<4x4xf16>, tensor<1x2x2x2xbf16>, tensor<4x4xf32>
}

// CHECK-LABEL: func.func @sums
// CHECK: %[[W:.*]] = stablehlo.convert %arg0 : (tensor<8xbf16>) -> tensor<8xf32>
// CHECK-NEXT: %[[I:.*]] = stablehlo.convert %cst : (tensor<bf16>) -> tensor<f32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.reduce(%[[W]] init: %[[I]]) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %[[N:.*]] = stablehlo.convert %[[S]] : (tensor<f32>) -> tensor<bf16>
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: %[[M:.*]] = stablehlo.reduce(%arg1 init: %{{.*}}) applies stablehlo.maximum across dimensions = [0] : (tensor<8xf16>, tensor<f16>) -> tensor<f16>
// CHECK-NEXT: return %[[N]], %[[M]]
func.func @sums(%x: tensor<8xbf16>, %y: tensor<8xf16>) -> (tensor<bf16>, tensor<f16>) {
  %zero = stablehlo.constant dense<0.0> : tensor<bf16>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8xbf16>, tensor<bf16>) -> tensor<bf16>
  %low = stablehlo.constant dense<0xFC00> : tensor<f16>
  %1 = stablehlo.reduce(%y init: %low) applies stablehlo.maximum across dimensions = [0] : (tensor<8xf16>, tensor<f16>) -> tensor<f16>
  return %0, %1 : tensor<bf16>, tensor<f16>
}
