// shlo-boolean-add-as-or: an `add` of booleans, elementwise or in a reduction's body, becomes
// the `or` StableHLO defines it as; adds of other types stay.  IREE added booleans modulo 2
// (true + true = false): run on IREE, before and after.
// RUN: shlo-opt %s --shlo-boolean-add-as-or | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-boolean-add-as-or | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main | filecheck %s

// IR-LABEL: func.func @main
// IR: %[[SUM:.*]] = stablehlo.or %[[A:.*]], %[[B:.*]] : tensor<4xi1>
// IR: stablehlo.reduce(%[[A]] init: %{{.*}}) applies stablehlo.or across dimensions = [0]
// IR: stablehlo.add %{{.*}}, %{{.*}} : tensor<4xi32>
// BEFORE: 4xi1=00 01 01 00
// BEFORE: i1=00
// CHECK: 4xi1=01 01 01 00
// CHECK: i1=01
// CHECK: 4xi32=2 1 1 0
func.func @main() -> (tensor<4xi1>, tensor<i1>, tensor<4xi32>) {
  %a0 = stablehlo.constant dense<[true, true, false, false]> : tensor<4xi1>
  %b0 = stablehlo.constant dense<[true, false, true, false]> : tensor<4xi1>
  %a, %b = stablehlo.optimization_barrier %a0, %b0 : tensor<4xi1>, tensor<4xi1>
  %sum = stablehlo.add %a, %b : tensor<4xi1>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %any = stablehlo.reduce(%a init: %false) applies stablehlo.add across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
  %ia = stablehlo.convert %a : (tensor<4xi1>) -> tensor<4xi32>
  %ib = stablehlo.convert %b : (tensor<4xi1>) -> tensor<4xi32>
  %count = stablehlo.add %ia, %ib : tensor<4xi32>
  return %sum, %any, %count : tensor<4xi1>, tensor<i1>, tensor<4xi32>
}
