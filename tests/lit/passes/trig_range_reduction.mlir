// shlo-trig-range-reduction: sine, cosine and tan of arguments past pi/4 take the function of
// the exactly reduced argument; IREE's own reduction loses the result for large arguments
// (infinities, NaN, 0 below), and its functions of a small negative argument are off by about
// 6e-8 (sin(-0) lost its sign).  Run on IREE, before and after.
// RUN: shlo-opt %s --shlo-trig-range-reduction | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main --input="6xf32=1e30 -3.4028235e38 1e10 1.5707963 -1e-30 -0" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-trig-range-reduction | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="6xf32=1e30 -3.4028235e38 1e10 1.5707963 -1e-30 -0" | filecheck %s

// IR-LABEL: func.func @main
// IR: stablehlo.floor %{{.*}} : tensor<6xf32>
// IR: stablehlo.sine %{{.*}} : tensor<6xf32>
// IR: stablehlo.tan %{{.*}} : tensor<6xf32>
// IR-LABEL: func.func @half
// IR: stablehlo.convert %arg0 : (tensor<2xf16>) -> tensor<2xf32>
// IR: stablehlo.convert %{{.*}} : (tensor<2xf32>) -> tensor<2xf16>
// IR-LABEL: func.func @dynamic
// IR-NEXT: stablehlo.sine %arg0 : tensor<?xf32>
// IR-NEXT: return

// BEFORE: 6xf32=-INF INF 0 1 6.22985E-08 0
// BEFORE: 6xf32=-INF -INF 1 5.7422E-08 1 1
// BEFORE: 6xf32=-NAN -NAN 0 1.74149E+07 6.22985E-08 0
// CHECK: 6xf32=-0.791163 0.521877 -0.487506 1 -1E-30 -0
// CHECK: 6xf32=-0.611605 0.853021 0.87312 7.54979E-08 1 1
// CHECK: 6xf32=1.29359 0.611798 -0.55835 1.32454E+07 -1E-30 -0
func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = stablehlo.sine %x : tensor<6xf32>
  %1 = stablehlo.cosine %x : tensor<6xf32>
  %2 = stablehlo.tan %x : tensor<6xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

func.func @half(%x: tensor<2xf16>) -> tensor<2xf16> {
  %0 = stablehlo.sine %x : tensor<2xf16>
  return %0 : tensor<2xf16>
}

func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.sine %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
