// StableHLO, CHLO and VHLO parse with no pass loading them first, and print back.
// RUN: shlo-opt %s | filecheck %s
// RUN: shlo-opt %s --chlo-legalize-to-stablehlo | filecheck %s --check-prefix=LOWERED

// CHECK-LABEL: func.func @chlo_and_stablehlo
// CHECK: chlo.tan %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK: stablehlo.add
// LOWERED-LABEL: func.func @chlo_and_stablehlo
// LOWERED-NOT: chlo.tan
func.func @chlo_and_stablehlo(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.tan %x : tensor<4xf32> -> tensor<4xf32>
  %1 = stablehlo.add %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: vhlo.func_v1 @vhlo_function
// CHECK: vhlo.return_v1
vhlo.func_v1 @vhlo_function(%arg0: !vhlo.tensor_v1<!vhlo.f32_v1>) -> (!vhlo.tensor_v1<!vhlo.f32_v1>) {
  "vhlo.return_v1"(%arg0) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> ()
} {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
