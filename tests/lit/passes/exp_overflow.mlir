// shlo-exp-overflow: f32 exp is +inf past the last f32 whose exp is finite (88.72283), so
// exp(x) - y is NaN at an overflowing x and an infinite y, as eager computes it.  IREE fuses
// exp's last multiply with the subtract into one FMA, whose exact product never overflows:
// -inf before the pass.  Run on IREE, before and after; f64 and dynamic shapes are left alone.
// RUN: shlo-opt %s --shlo-exp-overflow | filecheck %s --check-prefix=IR
// RUN: iree-compile %s --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host -o %t.before.vmfb
// RUN: iree-run-module --module=%t.before.vmfb --device=local-sync --function=main --input="6xf32=inf 1e30 89 88.72283 1 nan" --input="6xf32=inf inf inf inf 1 0" | filecheck %s --check-prefix=BEFORE
// RUN: shlo-opt %s --shlo-exp-overflow | iree-compile - --iree-input-type=stablehlo --iree-hal-target-device=local --iree-hal-local-target-device-backends=llvm-cpu --iree-llvmcpu-target-cpu=host -o %t.vmfb
// RUN: iree-run-module --module=%t.vmfb --device=local-sync --function=main --input="6xf32=inf 1e30 89 88.72283 1 nan" --input="6xf32=inf inf inf inf 1 0" | filecheck %s

// IR-LABEL: func.func @main
// IR-DAG: %[[EXP:.*]] = stablehlo.exponential %arg0 : tensor<6xf32>
// IR-DAG: %[[LAST:.*]] = stablehlo.constant dense<88.7228317> : tensor<6xf32>
// IR-DAG: %[[INF:.*]] = stablehlo.constant dense<0x7F800000> : tensor<6xf32>
// IR-DAG: %[[OVER:.*]] = stablehlo.compare GT, %arg0, %[[LAST]], FLOAT
// IR: %[[SEL:.*]] = stablehlo.select %[[OVER]], %[[INF]], %[[EXP]]
// IR: stablehlo.subtract %[[SEL]], %arg1
// IR-LABEL: func.func @wide
// IR-NEXT: stablehlo.exponential %arg0 : tensor<6xf64>
// IR-NEXT: return
// IR-LABEL: func.func @dynamic
// IR-NEXT: stablehlo.exponential %arg0 : tensor<?xf32>
// IR-NEXT: return

// BEFORE: 6xf32=-INF -INF -INF -INF 1.71828 NAN
// CHECK: 6xf32={{-?}}NAN {{-?}}NAN {{-?}}NAN -INF 1.71828 NAN
func.func @main(%x: tensor<6xf32>, %y: tensor<6xf32>) -> tensor<6xf32> {
  %0 = stablehlo.exponential %x : tensor<6xf32>
  %1 = stablehlo.subtract %0, %y : tensor<6xf32>
  return %1 : tensor<6xf32>
}

func.func @wide(%x: tensor<6xf64>) -> tensor<6xf64> {
  %0 = stablehlo.exponential %x : tensor<6xf64>
  return %0 : tensor<6xf64>
}

func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.exponential %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// A softmax's exponential feeds a sum and a divide, which do not contract: left as it is.
// IR-LABEL: func.func @softmax
// IR-NOT: stablehlo.select
// IR: stablehlo.divide
func.func @softmax(%x: tensor<2x6xf32>) -> tensor<2x6xf32> {
  %0 = stablehlo.exponential %x : tensor<2x6xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x6xf32>, tensor<f32>) -> tensor<2xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<2xf32>) -> tensor<2x6xf32>
  %3 = stablehlo.divide %0, %2 : tensor<2x6xf32>
  return %3 : tensor<2x6xf32>
}
