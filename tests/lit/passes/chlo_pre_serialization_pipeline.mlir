// `chlo-pre-serialization-pipeline` (upstream's registered pipeline) leaves no CHLO or shape
// op, as a flag and inside --pass-pipeline.
// RUN: shlo-opt %s --chlo-pre-serialization-pipeline | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(chlo-pre-serialization-pipeline)' \
// RUN:   | filecheck %s
// RUN: shlo-opt %s --chlo-pre-serialization-pipeline --dump-pass-pipeline 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=PIPELINE

// CHECK-LABEL: func.func @main
// CHECK-NOT:     chlo.
// CHECK-NOT:     shape.
// CHECK:         stablehlo.compare
// CHECK-NOT:     chlo.
// CHECK-NOT:     shape.
// CHECK:         return
// PIPELINE: chlo-legalize-to-stablehlo
// PIPELINE-SAME: shape-legalize-to-stablehlo
// PIPELINE-SAME: reconcile-unrealized-casts
func.func @main(%arg0: tensor<?xf32>) -> (tensor<?xi1>, tensor<1xindex>) {
  %0 = chlo.is_inf %arg0 : tensor<?xf32> -> tensor<?xi1>
  %1 = shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>
  return %0, %1 : tensor<?xi1>, tensor<1xindex>
}
