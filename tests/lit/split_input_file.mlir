// RUN: shlo-opt %s --split-input-file | filecheck %s
// RUN: shlo-opt %s -split-input-file -canonicalize | filecheck %s
// RUN: shlo-opt %s --split-input-file= | filecheck %s
// RUN: shlo-opt %s --split-input-file --output-split-marker='// =====' | filecheck %s --check-prefix=MARKER
// RUN: shlo-opt %s --split-input-file='//'' ~~~~~' | filecheck %s --check-prefix=OTHER
// RUN: not shlo-opt %s --split-input-file --emit-bytecode 2>&1 | filecheck %s --check-prefix=BYTECODE

// Each chunk is its own module; outputs are joined by the marker.
// CHECK-LABEL: func.func @first
// CHECK:       }
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NEXT:  {{//}} -----
// CHECK-NEXT:  module {
// CHECK-NEXT:    func.func @second
// CHECK:       {{//}} -----
// CHECK-NEXT:  module {
// CHECK-NEXT:    func.func @third

// MARKER: func.func @first
// MARKER: // =====
// MARKER: func.func @second

// With another marker, the default one is just a comment: one module holds every function.
// (Like MLIR, the split finds a marker anywhere on a line, so checks spell it {{//}} -----.)
// OTHER:     func.func @first
// OTHER-NOT: {{//}} -----
// OTHER:     func.func @second
// OTHER:     func.func @third
// BYTECODE: shlo-opt: --emit-bytecode cannot be combined with --split-input-file

func.func @first() {
  return
}

// -----

func.func @second() {
  return
}

// -----

func.func @third() {
  return
}
