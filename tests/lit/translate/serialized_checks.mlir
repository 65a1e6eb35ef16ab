// check.expect_serialized_eq compares a value with what a user probe wrote under
// --probe-output-dir (the index line numbered `iteration`, as upstream reads it).
// RUN: rm -rf %t && not shlo-translate --interpret --probe-output-dir %t %s 2>&1 | filecheck %s
// RUN: filecheck %s --check-prefix=INDEX < %t/index.csv
// INDEX: values,tensor<3xi32>,{{.*}}probe1.npy
// INDEX-NOT: shlo.check
func.func @main() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = interpreter.probe %0, probe_id = "values" : tensor<3xi32>
  // CHECK-NOT: serialized_checks.mlir:[[# @LINE + 1]]
  check.expect_serialized_eq %0, probe_id = "values" : tensor<3xi32>
  %2 = stablehlo.add %0, %0 : tensor<3xi32>
  // CHECK: serialized_checks.mlir:[[# @LINE + 1]]:3: error: check.expect_serialized_eq failed in @main: Element values don't match: 2 (actual) vs 1 (expected) at index [0]; 3 of 3 elements differ
  check.expect_serialized_eq %2, probe_id = "values" : tensor<3xi32>
  return
}
