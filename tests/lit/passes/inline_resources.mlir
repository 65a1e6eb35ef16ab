// shlo-inline-resources writes constants held in resource blobs (as torch-mlir imports every
// tensor) as dense elements.  IREE's Vulkan target narrows i64 to i32 (shlo asks it to when no
// i64 crosses the interface) and cannot retype a blob: it rejects the raw module and takes the
// rewritten one.
// RUN: shlo-opt %s '--pass-pipeline=builtin.module(shlo-inline-resources{element-types=i64})' | filecheck %s
// RUN: not iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=vulkan --iree-input-demote-i64-to-i32 -o /dev/null 2>&1 | filecheck %s --check-prefix=RAW
// RUN: shlo-opt %s '--pass-pipeline=builtin.module(shlo-inline-resources{element-types=i64})' | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=vulkan --iree-input-demote-i64-to-i32 -o /dev/null
// RAW: 'arith.constant' op failed to verify that all of {value, result} have same type
// Without element-types, every blob is written out.
// RUN: shlo-opt %s --shlo-inline-resources | filecheck %s --check-prefix=ALL
// ALL: stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
// ALL: stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>

// CHECK-LABEL: func.func @main
// CHECK: stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK: stablehlo.constant dense_resource<floats> : tensor<2xf32>
func.func @main(%x: tensor<3xi32>, %y: tensor<2xf32>) -> (tensor<3xi32>, tensor<2xf32>) {
  %i = stablehlo.constant dense_resource<longs> : tensor<3xi64>
  %f = stablehlo.constant dense_resource<floats> : tensor<2xf32>
  %w = stablehlo.convert %x : (tensor<3xi32>) -> tensor<3xi64>
  %a = stablehlo.add %w, %i : tensor<3xi64>
  %n = stablehlo.convert %a : (tensor<3xi64>) -> tensor<3xi32>
  %b = stablehlo.add %y, %f : tensor<2xf32>
  return %n, %b : tensor<3xi32>, tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      longs: "0x08000000010000000000000002000000000000000300000000000000",
      floats: "0x040000000000803F00000040"
    }
  }
#-}
