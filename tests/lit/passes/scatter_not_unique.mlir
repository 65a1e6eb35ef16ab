// shlo-scatter-not-unique: a scatter's unique_indices promise dropped (IREE's Vulkan target, given
// it, applied a single update eight times); the values are the same.
// RUN: shlo-opt %s --shlo-scatter-not-unique | filecheck %s --check-prefix=IR
// RUN: shlo-opt %s --shlo-scatter-not-unique | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=vulkan -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=vulkan --function=main --input="1x4xf32=[[5 1 2 3]]" --input="1xf32=[-0.5]" | filecheck %s

// IR: "stablehlo.scatter"
// IR-SAME: unique_indices = false
// CHECK: 1x4xf32=[4.5 1 2 3]
func.func @main(%operand: tensor<1x4xf32>, %update: tensor<1xf32>) -> tensor<1x4xf32> {
  %index = stablehlo.constant dense<0> : tensor<1xi32>
  %0 = "stablehlo.scatter"(%operand, %index, %update) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<1x4xf32>, tensor<1xi32>, tensor<1xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
