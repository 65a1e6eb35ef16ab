// `stablehlo-deserialize` (upstream's registered pipeline) turns VHLO of an older version back
// into StableHLO, as a flag and inside --pass-pipeline, and lists what it expands to.
// RUN: shlo-translate --serialize --target=1.0.0 %s \
// RUN:   | shlo-opt --pass-pipeline='builtin.module(stablehlo-deserialize)' | filecheck %s
// RUN: shlo-translate --serialize --target=1.0.0 %s | shlo-opt --stablehlo-deserialize \
// RUN:   | filecheck %s
// RUN: shlo-opt %s --stablehlo-legalize-to-vhlo --stablehlo-deserialize | filecheck %s
// RUN: shlo-opt %s --stablehlo-deserialize --dump-pass-pipeline 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=PIPELINE

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %[[SUM:.+]] = stablehlo.add %arg0, %arg0 : tensor<2xf32>
// CHECK-NEXT:    %[[C:.+]] = stablehlo.compare LT, %[[SUM]], %arg0, FLOAT
// CHECK-NEXT:    return %[[C]]
// CHECK-NOT:   vhlo.
// PIPELINE: vhlo-to-version{target={{[0-9]+\.[0-9]+\.[0-9]+}}}
// PIPELINE-SAME: vhlo-legalize-to-stablehlo
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xi1> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  %1 = stablehlo.compare LT, %0, %arg0, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %1 : tensor<2xi1>
}
