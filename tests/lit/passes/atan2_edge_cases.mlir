// shlo-atan2-edge-cases: atan2 of two zeros or two infinities takes C's answer (0 or pi,
// pi/4 or 3pi/4, with the sign of y; -0 counts as negative), which IREE's approximation
// makes NaN; other elements keep the magnitude of IREE's atan2 and take the sign of y, which
// IREE lost where y / x rounds to zero and x is negative (atan2(-0, -1), atan2(-1, -inf) gave
// pi).  Run on IREE, before and after.
// RUN: shlo-opt %s --shlo-atan2-edge-cases | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main --input="11xf32=0 0 -0 -0 inf inf -inf 1 -0 -1 -1" --input="11xf32=0 -0 0 -0 inf -inf inf -1 -1 -inf -3e38" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-atan2-edge-cases | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="11xf32=0 0 -0 -0 inf inf -inf 1 -0 -1 -1" --input="11xf32=0 -0 0 -0 inf -inf inf -1 -1 -inf -3e38" | filecheck %s

// IR-LABEL: func.func @main
// IR-DAG: stablehlo.divide %{{.*}}, %arg1 : tensor<11xf32>
// IR-DAG: %[[ATAN:.*]] = stablehlo.atan2 %arg0, %arg1 : tensor<11xf32>
// IR: %[[MAGNITUDE:.*]] = stablehlo.abs %[[ATAN]]
// IR: %[[CHOSEN:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[MAGNITUDE]]
// IR: %[[NEGATED:.*]] = stablehlo.negate %[[CHOSEN]]
// IR: %[[RESULT:.*]] = stablehlo.select %{{.*}}, %[[NEGATED]], %[[CHOSEN]]
// IR: return %[[RESULT]]
// IR-LABEL: func.func @dynamic
// IR-NEXT: stablehlo.atan2 %arg0, %arg1 : tensor<?xf32>
// IR-NEXT: return

// BEFORE: 11xf32=NAN NAN NAN NAN -NAN -NAN -NAN 2.35619 3.14159 3.14159 3.14159
// CHECK: 11xf32=0 3.14159 -0 -3.14159 0.785398 2.35619 -0.785398 2.35619 -3.14159 -3.14159 -3.14159
func.func @main(%y: tensor<11xf32>, %x: tensor<11xf32>) -> tensor<11xf32> {
  %0 = stablehlo.atan2 %y, %x : tensor<11xf32>
  return %0 : tensor<11xf32>
}

func.func @dynamic(%y: tensor<?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.atan2 %y, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
