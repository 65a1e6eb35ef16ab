// interpreter.print prints during the run; interpreter.probe writes .npy files and an index.
// RUN: rm -rf %t.probes && mkdir %t.probes
// RUN: shlo-translate --interpret --probe-output-dir %t.probes %s | filecheck %s
// RUN: filecheck %s --check-prefix=INDEX < %t.probes/index.csv
// RUN: %PYTHON -c "import numpy; print(numpy.load('%t.probes/probe1.npy').tolist())" | filecheck %s --check-prefix=NPY
// A second run into the same folder starts a new index (Api.cpp removes the old one).
// RUN: shlo-translate --interpret --probe-output-dir %t.probes %s > /dev/null
// RUN: filecheck %s --check-prefix=AGAIN < %t.probes/index.csv

// CHECK: tensor<2xf32> {
// CHECK-NEXT:   [1.000000e+00, 2.000000e+00]
// CHECK-NEXT: }
// INDEX: before_add,tensor<2xf32>,{{.*}}probe1.npy
// NPY: [1.0, 2.0]
// AGAIN: before_add,tensor<2xf32>,{{.*}}probe1.npy
// AGAIN-NOT: before_add
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  interpreter.print %0 : tensor<2xf32>
  %1 = interpreter.probe %0, probe_id = "before_add" : tensor<2xf32>
  %2 = stablehlo.add %1, %1 : tensor<2xf32>
  check.expect_eq_const %2, dense<[2.0, 4.0]> : tensor<2xf32>
  func.return
}
