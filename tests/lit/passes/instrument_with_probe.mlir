// interpreter-instrument-with-probe: a probe after each tensor result (constants excepted),
// numbered in post-order; with useDebugInfo, named after the op's name location.
// RUN: shlo-opt %s --interpreter-instrument-with-probe | filecheck %s --check-prefix=IDS
// RUN: shlo-opt %s --interpreter-instrument-with-probe=useDebugInfo=true | filecheck %s --check-prefix=NAMED
// The probed module runs in the interpreter, which records every probed value.
// RUN: rm -rf %t && shlo-opt %s --interpreter-instrument-with-probe=useDebugInfo=true | shlo-translate --interpret --probe-output-dir %t | filecheck %s --check-prefix=VALUES
// RUN: cat %t/index.csv | filecheck %s --check-prefix=INDEX

// IDS-LABEL: func.func @main
// IDS: %[[C:.*]] = stablehlo.constant dense<[1, 2]>
// IDS-NEXT: %[[SUM:.*]] = stablehlo.add %[[C]], %[[C]]
// IDS-NEXT: %[[P1:.*]] = interpreter.probe %[[SUM]], probe_id = "probe1"
// IDS-NEXT: %[[MUL:.*]] = stablehlo.multiply %[[P1]], %[[P1]]
// IDS-NEXT: %[[P2:.*]] = interpreter.probe %[[MUL]], probe_id = "probe2"
// IDS-NEXT: return %[[P2]]
// NAMED: probe_id = "sum.1"
// NAMED: probe_id = "probe2"
// VALUES: tensor<2xi32> {
// VALUES-NEXT: [4, 16]
// INDEX: sum.1,tensor<2xi32>,{{.*}}.npy
// INDEX-NEXT: probe2,tensor<2xi32>,{{.*}}.npy
func.func @main() -> tensor<2xi32> {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32> loc("sum@model.py:3")
  %2 = stablehlo.multiply %1, %1 : tensor<2xi32>
  return %2 : tensor<2xi32>
}
