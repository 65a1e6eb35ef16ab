// shlo-hashed-rng replaces each float UNIFORM stablehlo.rng of static shape by a call to a
// private function that hashes each element's index with a key of the draw's own (IREE's
// lowering of stablehlo.rng gives two draws of one shape the same numbers).  32-bit integer
// arithmetic only, so Vulkan compiles it; integer draws (which IREE does not compile) are left
// as they are.
// RUN: shlo-opt %s --shlo-hashed-rng | filecheck %s
// RUN: shlo-opt %s --shlo-hashed-rng | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=vulkan -o /dev/null

// CHECK-LABEL: func.func @main
// The key passes an optimization barrier, so IREE does not evaluate the draw while compiling.
// CHECK: %[[C1:.*]] = stablehlo.constant dense<[1592614637, 2654435769]> : tensor<2xui32>
// CHECK: %[[K1:.*]] = stablehlo.optimization_barrier %[[C1]] : tensor<2xui32>
// CHECK: call @__shlo_uniform_0(%[[K1]], %{{.*}}, %{{.*}}) : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4x3xf32>
// CHECK: %[[C2:.*]] = stablehlo.constant dense<[4247050406, 1013904242]> : tensor<2xui32>
// CHECK: %[[K2:.*]] = stablehlo.optimization_barrier %[[C2]] : tensor<2xui32>
// CHECK: call @__shlo_uniform_0(%[[K2]], %{{.*}}, %{{.*}})
// CHECK: call @__shlo_uniform_1({{.*}}) : (tensor<2xui32>, tensor<f64>, tensor<f64>) -> tensor<5xf64>
func.func @main() -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xf64>) {
  %lo = stablehlo.constant dense<0.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %lo64 = stablehlo.constant dense<2.0> : tensor<f64>
  %hi64 = stablehlo.constant dense<3.0> : tensor<f64>
  %s = stablehlo.constant dense<[4, 3]> : tensor<2xi64>
  %s5 = stablehlo.constant dense<[5]> : tensor<1xi64>
  %a = stablehlo.rng %lo, %hi, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x3xf32>
  %b = stablehlo.rng %lo, %hi, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4x3xf32>
  %c = stablehlo.rng %lo64, %hi64, %s5, distribution = UNIFORM : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<5xf64>
  return %a, %b, %c : tensor<4x3xf32>, tensor<4x3xf32>, tensor<5xf64>
}

// CHECK-LABEL: func.func private @ints
// CHECK: stablehlo.rng {{.*}} -> tensor<2xi32>
// CHECK: func.func private @__shlo_uniform_0(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x3xf32>
// CHECK: stablehlo.iota dim = 0 : tensor<12xui32>
// CHECK: func.func private @__shlo_uniform_1
// CHECK: stablehlo.iota dim = 0 : tensor<10xui32>
// CHECK-NOT: stablehlo.rng
func.func private @ints() -> tensor<2xi32> {
  %lo = stablehlo.constant dense<0> : tensor<i32>
  %hi = stablehlo.constant dense<10> : tensor<i32>
  %s = stablehlo.constant dense<[2]> : tensor<1xi64>
  %d = stablehlo.rng %lo, %hi, %s, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<2xi32>
  return %d : tensor<2xi32>
}
