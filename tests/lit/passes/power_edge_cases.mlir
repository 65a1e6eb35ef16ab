// shlo-power-edge-cases: power of a negative base keeps the sign of x for an odd integer y and
// is NaN for a non-integer y unless x is -inf (inf, or 0 for y < 0); a zero base with a
// negative y is infinite; y = 0, x = 1 and |x| = 1 with |y| = inf give 1 (C's pow).  IREE
// computes power as if the base were positive (NaN for every negative base).  Run on IREE, before and after.
// RUN: shlo-opt %s --shlo-power-edge-cases | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main --input="15xf32=-2 -2 -2 -0.5 0 -0 0 -3 1 -1 nan 2 -inf -inf -inf" --input="15xf32=2 3 0.5 1 -1 -1 0 0 nan inf 0 -2 2.5 -2.5 3" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-power-edge-cases | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="15xf32=-2 -2 -2 -0.5 0 -0 0 -3 1 -1 nan 2 -inf -inf -inf" --input="15xf32=2 3 0.5 1 -1 -1 0 0 nan inf 0 -2 2.5 -2.5 3" | filecheck %s

// IR-LABEL: func.func @main
// IR-DAG: %[[ABS:.*]] = stablehlo.abs %arg0 : tensor<15xf32>
// IR-DAG: %[[POWER:.*]] = stablehlo.power %[[ABS]], %arg1 : tensor<15xf32>
// IR: stablehlo.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<15xi1>, tensor<15xf32>
// IR: return %{{[0-9]+}} : tensor<15xf32>
// IR-LABEL: func.func @dynamic
// IR-NEXT: stablehlo.power %arg0, %arg1 : tensor<?xf32>
// IR-NEXT: return

// BEFORE: 15xf32=NAN NAN NAN NAN INF INF -NAN NAN NAN NAN NAN 0.25 NAN NAN NAN
// CHECK: 15xf32=4 -8 NAN -0.5 INF -INF 1 1 1 1 1 0.25 INF 0 -INF
func.func @main(%x: tensor<15xf32>, %y: tensor<15xf32>) -> tensor<15xf32> {
  %0 = stablehlo.power %x, %y : tensor<15xf32>
  return %0 : tensor<15xf32>
}

func.func @dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.power %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
