// mlir-opt's location and region printing flags print what torch-mlir-opt (MlirOptMain at the
// wheels' LLVM) prints.
// RUN: shlo-opt %s --mlir-print-debuginfo --mlir-pretty-debuginfo > %t.shlo
// RUN: torch-mlir-opt %s --mlir-print-debuginfo --mlir-pretty-debuginfo > %t.upstream
// RUN: diff %t.shlo %t.upstream
// RUN: filecheck %s --check-prefix=PRETTY < %t.shlo
// RUN: shlo-opt %s --mlir-use-nameloc-as-prefix > %t.shlo
// RUN: torch-mlir-opt %s --mlir-use-nameloc-as-prefix > %t.upstream
// RUN: diff %t.shlo %t.upstream
// RUN: filecheck %s --check-prefix=NAMES < %t.shlo
// RUN: shlo-opt %s --mlir-print-skip-regions > %t.shlo
// RUN: torch-mlir-opt %s --mlir-print-skip-regions > %t.upstream
// RUN: diff %t.shlo %t.upstream
// RUN: filecheck %s --check-prefix=SKIP < %t.shlo
// RUN: shlo-opt %s --mlir-print-assume-verified | filecheck %s --check-prefix=VERIFIED

// PRETTY: %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32> "sum"(#loc{{[0-9]+}})
// PRETTY-NEXT: %1 = stablehlo.abs %0 : tensor<4xf32> b.py:9:1
// NAMES: %sum = stablehlo.add %arg0, %arg0
// NAMES-NEXT: %0 = stablehlo.abs %sum
// SKIP: module {...}
// VERIFIED: %1 = stablehlo.abs %0 : tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32> loc("sum"("a.py":3:7))
  %1 = stablehlo.abs %0 : tensor<4xf32> loc("b.py":9:1)
  return %1 : tensor<4xf32>
}
