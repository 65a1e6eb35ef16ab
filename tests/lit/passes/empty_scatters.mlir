// shlo-empty-scatters: a scatter of no updates is its input; one with updates stays.
// iree-compile died with SIGFPE on it: compiled on IREE before (it crashes) and after.
// RUN: shlo-opt %s --shlo-empty-scatters | filecheck %s
// RUN: not iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb 2>&1 | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-empty-scatters | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=empty --input="5xf32=1 2 3 4 5" --input="0xi64" --input="0xf32" | filecheck %s --check-prefix=OUT

// BEFORE: Please report issues
// CHECK-LABEL: func.func @empty
// CHECK-NOT: stablehlo.scatter
// CHECK: return %arg0
// CHECK-LABEL: func.func @some
// CHECK: stablehlo.scatter
// OUT: result[0]: hal.buffer_view
// OUT-NEXT: 5xf32=1 2 3 4 5
func.func @empty(%x: tensor<5xf32>, %i: tensor<0xi64>, %u: tensor<0xf32>) -> tensor<5xf32> {
  %0 = stablehlo.reshape %i : (tensor<0xi64>) -> tensor<0x1xi64>
  %1 = "stablehlo.scatter"(%x, %0, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<5xf32>, tensor<0x1xi64>, tensor<0xf32>) -> tensor<5xf32>
  return %1 : tensor<5xf32>
}

func.func @some(%x: tensor<5xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) -> tensor<5xf32> {
  %0 = stablehlo.reshape %i : (tensor<2xi64>) -> tensor<2x1xi64>
  %1 = "stablehlo.scatter"(%x, %0, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<5xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<5xf32>
  return %1 : tensor<5xf32>
}
