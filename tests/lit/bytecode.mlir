// Bytecode out and in: detected by content, not by file name; from a file or stdin.
// RUN: shlo-opt %s --emit-bytecode -o %t.bc
// RUN: shlo-opt %t.bc | filecheck %s
// RUN: shlo-opt %s --emit-bytecode | shlo-opt --canonicalize | filecheck %s
// RUN: shlo-opt %s --emit-bytecode -o %t.looks-like-text.mlir
// RUN: shlo-opt %t.looks-like-text.mlir --mlir-print-debuginfo | filecheck %s --check-prefix=LOC
// RUN: od -c %t.bc | filecheck %s --check-prefix=MAGIC

// CHECK-LABEL: func.func @f
// CHECK: stablehlo.exponential %arg0 : tensor<4xf32>
// Locations survive the round trip.
// LOC: loc("{{.*}}bytecode.mlir":[[# @LINE + 3]]:8)
// MAGIC: 0000000 M L 357 R
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// RUN: not shlo-opt %t.bc --split-input-file 2>&1 | filecheck %s --check-prefix=SPLIT
// SPLIT: shlo-opt: --split-input-file needs text input; this is MLIR bytecode
