// shlo-shield-returned-arguments: an argument returned as it is (or reshaped) beside an
// in-place update of it goes through an optimization barrier, so IREE copies before the update
// instead of returning the updated buffer twice; an argument with no other use, or one read
// only by computations, is left alone.  Run on IREE, before and after.
// RUN: shlo-opt %s --shlo-shield-returned-arguments | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=returned --input="4xf32=0" --input="2xf32=1" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-shield-returned-arguments | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=returned --input="4xf32=0" --input="2xf32=1" | filecheck %s
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=reshaped --input="4xf32=0" --input="2xf32=1" | filecheck %s --check-prefix=RESHAPED

// IR-LABEL: func.func @returned
// IR-NEXT: %[[B:.*]] = stablehlo.optimization_barrier %arg0 : tensor<4xf32>
// IR: %[[U:.*]] = stablehlo.dynamic_update_slice %arg0, %arg1
// IR: return %[[U]], %[[B]]
// IR-LABEL: func.func @reshaped
// IR-NEXT: %[[B:.*]] = stablehlo.optimization_barrier %arg0 : tensor<4xf32>
// IR: stablehlo.reshape %[[B]]
// IR-LABEL: func.func @only_returned
// IR-NOT: optimization_barrier
// IR: return %arg0
// IR-LABEL: func.func @computed
// IR-NOT: optimization_barrier
// IR: return

// BEFORE: result[0]: hal.buffer_view
// BEFORE-NEXT: 4xf32=0 1 1 0
// BEFORE-NEXT: result[1]: hal.buffer_view
// BEFORE-NEXT: 4xf32=0 1 1 0
// CHECK: result[0]: hal.buffer_view
// CHECK-NEXT: 4xf32=0 1 1 0
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: 4xf32=0 0 0 0
// RESHAPED: 4xf32=0 1 1 0
// RESHAPED: 2x2xf32=[0 0][0 0]
func.func @returned(%x: tensor<4xf32>, %u: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %i = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.dynamic_update_slice %x, %u, %i : (tensor<4xf32>, tensor<2xf32>, tensor<i64>) -> tensor<4xf32>
  return %0, %x : tensor<4xf32>, tensor<4xf32>
}

func.func @reshaped(%x: tensor<4xf32>, %u: tensor<2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %i = stablehlo.constant dense<1> : tensor<i64>
  %0 = stablehlo.dynamic_update_slice %x, %u, %i : (tensor<4xf32>, tensor<2xf32>, tensor<i64>) -> tensor<4xf32>
  %1 = stablehlo.reshape %x : (tensor<4xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<4xf32>, tensor<2x2xf32>
}

func.func @only_returned(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @computed(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.multiply %x, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
