// shlo-accumulate-in-f32: f16/bf16 dot_general and convolution get an f32 result, converted
// back once; f32 ones are left as they are.  iree-compile takes the mixed-precision form.
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
