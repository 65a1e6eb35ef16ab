// shlo-unsigned-shift-right-logical: an arithmetic right shift of unsigned integers becomes
// the logical shift it is; signed shifts stay.  IREE shifted in copies of the top bit of
// unsigned values (200 >> 1 = 228 in ui8): run on IREE, before and after.
// RUN: shlo-opt %s --shlo-unsigned-shift-right-logical | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-unsigned-shift-right-logical | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main | filecheck %s

// IR-LABEL: func.func @main
// IR: stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<4xui8>
// IR: stablehlo.shift_right_logical %{{.*}}, %{{.*}} : tensor<2xui64>
// IR: stablehlo.shift_right_arithmetic %{{.*}}, %{{.*}} : tensor<4xi8>
// BEFORE: 4xui8=228 255 192 3
// CHECK: 4xui8=100 15 64 3
// CHECK: 2xui64=9223372036854775807 1
// CHECK: 4xi8=-28 -1 -64 3
func.func @main() -> (tensor<4xui8>, tensor<2xui64>, tensor<4xi8>) {
  %x0 = stablehlo.constant dense<[200, 255, 128, 7]> : tensor<4xui8>
  %n0 = stablehlo.constant dense<[1, 4, 1, 1]> : tensor<4xui8>
  %w0 = stablehlo.constant dense<[18446744073709551615, 2]> : tensor<2xui64>
  %m0 = stablehlo.constant dense<1> : tensor<2xui64>
  %x, %n, %w, %m = stablehlo.optimization_barrier %x0, %n0, %w0, %m0 : tensor<4xui8>, tensor<4xui8>, tensor<2xui64>, tensor<2xui64>
  %0 = stablehlo.shift_right_arithmetic %x, %n : tensor<4xui8>
  %1 = stablehlo.shift_right_arithmetic %w, %m : tensor<2xui64>
  %s = stablehlo.bitcast_convert %x : (tensor<4xui8>) -> tensor<4xi8>
  %t = stablehlo.bitcast_convert %n : (tensor<4xui8>) -> tensor<4xi8>
  %2 = stablehlo.shift_right_arithmetic %s, %t : tensor<4xi8>
  return %0, %1, %2 : tensor<4xui8>, tensor<2xui64>, tensor<4xi8>
}
