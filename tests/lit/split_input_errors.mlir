// A bad chunk fails alone, with locations in this file; the others still print.
// RUN: not shlo-opt %s --split-input-file 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR < %t.err

// CHECK:      func.func @good_before
// CHECK:      // -----
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @good_after

// ERR: split_input_errors.mlir:[[# @LINE + 8]]:26: error: use of undeclared SSA value name
// ERR-NEXT: %0 = stablehlo.add %a, %b : tensor<2xf32>
// ERR-NEXT: {{^ +}}^
func.func @good_before() {
  return
}
// -----
func.func @bad(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
// -----
func.func @good_after() {
  return
}
