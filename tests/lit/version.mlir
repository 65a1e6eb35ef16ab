// RUN: shlo-opt --version | filecheck %s
// RUN: shlo-opt -version | filecheck %s

// CHECK: shlo {{[0-9]+\.[0-9]+\.[0-9]+}}
// CHECK-DAG: torch-mlir 20261001 (StableHLO {{[0-9]+\.[0-9]+\.[0-9]+}})
// CHECK-DAG: IREE compiler 3.13.0
// CHECK-DAG: IREE runtime 3.13.0
