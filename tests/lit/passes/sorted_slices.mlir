// shlo-own-sort-operands: a sort of a slice (or dynamic slice) of an argument sorts it behind
// an optimization barrier.  IREE fused the slice into the sort's dispatch and failed to
// compile it (it sorted in the argument's read-only buffer): compiled on IREE, before and
// after.
// RUN: shlo-opt %s --shlo-own-sort-operands | filecheck %s --check-prefix=IR
// RUN: not iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb 2>&1 | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-own-sort-operands | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=sliced --input="2x4xf32=[3 1 2 0][5 -1 4 9]" --input="i32=1" | filecheck %s

// IR-LABEL: func.func @sliced
// IR: %[[SLICE:.*]] = stablehlo.slice %arg0 [0:2, 0:3]
// IR: %[[APART:.*]] = stablehlo.optimization_barrier %[[SLICE]]
// IR: "stablehlo.sort"(%[[APART]])
// IR: %[[WINDOW:.*]] = stablehlo.dynamic_slice %arg0
// IR: %[[APART2:.*]] = stablehlo.optimization_barrier %[[WINDOW]]
// IR: "stablehlo.sort"(%[[APART2]])
// IR-LABEL: func.func @computed
// IR-NOT: optimization_barrier

// BEFORE: error: 'linalg.generic' op write affecting operations on global resources
// CHECK: result[0]: hal.buffer_view
// CHECK-NEXT: 2x3xf32=[1 2 3][-1 4 5]
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: 2x2xf32=[1 2][-1 4]
func.func @sliced(%x: tensor<2x4xf32>, %i: tensor<i32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  %s = stablehlo.slice %x [0:2, 0:3] : (tensor<2x4xf32>) -> tensor<2x3xf32>
  %0 = "stablehlo.sort"(%s) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %w = stablehlo.dynamic_slice %x, %zero, %i, sizes = [2, 2] : (tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
  %1 = "stablehlo.sort"(%w) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
}

func.func @computed(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %n = stablehlo.negate %x : tensor<2x4xf32>
  %0 = "stablehlo.sort"(%n) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
