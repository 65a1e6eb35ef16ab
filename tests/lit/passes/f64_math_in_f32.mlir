// shlo-f64-math-in-f32 computes f64 math functions that SPIR-V lacks in f32, converting around
// them; f64 arithmetic stays f64.  IREE's Vulkan target rejects the f64 exp, takes the result.
// RUN: shlo-opt %s --shlo-f64-math-in-f32 | filecheck %s
// RUN: not iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=vulkan --iree-input-demote-f64-to-f32=false --iree-vulkan-target-features=spirv:v1.3,cap:Shader,cap:Float64 -o /dev/null 2>&1 | filecheck %s --check-prefix=RAW
// RUN: shlo-opt %s --shlo-f64-math-in-f32 | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=vulkan --iree-input-demote-f64-to-f32=false --iree-vulkan-target-features=spirv:v1.3,cap:Shader,cap:Float64 -o /dev/null
// RAW: error: 'spirv.GL.Exp' op operand #0 must be 16/32-bit float
// With `ops`, only the ops named (what llvm-cpu lacks in f64) move to f32.
// RUN: shlo-opt %s '--pass-pipeline=builtin.module(shlo-f64-math-in-f32{ops=stablehlo.power,stablehlo.cosine})' | filecheck %s --check-prefix=ONLY
// ONLY: stablehlo.exponential %arg0 : tensor<4xf64>
// ONLY: stablehlo.power {{.*}} : tensor<4xf32>

// CHECK-LABEL: func.func @main
// CHECK: %[[X:.*]] = stablehlo.convert %arg0 : (tensor<4xf64>) -> tensor<4xf32>
// CHECK: %[[E:.*]] = stablehlo.exponential %[[X]] : tensor<4xf32>
// CHECK: %[[W:.*]] = stablehlo.convert %[[E]] : (tensor<4xf32>) -> tensor<4xf64>
// CHECK: stablehlo.power {{.*}} : tensor<4xf32>
// CHECK: stablehlo.add %[[W]], %arg0 : tensor<4xf64>
// CHECK: stablehlo.tanh {{.*}} : tensor<4xf32>
func.func @main(%x: tensor<4xf64>, %y: tensor<4xf32>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf32>) {
  %e = stablehlo.exponential %x : tensor<4xf64>
  %p = stablehlo.power %x, %x : tensor<4xf64>
  %s = stablehlo.add %e, %x : tensor<4xf64>
  // Already f32: left as it is.
  %t = stablehlo.tanh %y : tensor<4xf32>
  return %s, %p, %t : tensor<4xf64>, tensor<4xf64>, tensor<4xf32>
}
