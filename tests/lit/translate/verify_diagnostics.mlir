// shlo-translate --verify-diagnostics: MLIR's diagnostics and failing checks are matched against
// expected-* comments; the run passes when every one was expected and every comment was seen.
// RUN: shlo-translate --interpret --split-input-file --verify-diagnostics %s
// RUN: not shlo-translate --interpret --split-input-file --verify-diagnostics %inputs/verify_mismatch.mlir 2>&1 | filecheck %inputs/verify_mismatch.mlir
// Without the flag the same expected failures fail the run.
// RUN: not shlo-translate --interpret --split-input-file %s 2>&1 | filecheck %s --check-prefix=PLAIN
// A portable artifact cut short: every diagnostic is unexpected (bytecode has no comments).
// RUN: shlo-translate --serialize %inputs/not_flat.mlir -o %t.vhlo
// RUN: %PYTHON -c "import sys; data = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write(data[:60])" %t.vhlo %t.cut.vhlo
// RUN: not shlo-translate --deserialize --verify-diagnostics %t.cut.vhlo 2>&1 | filecheck %s --check-prefix=BYTECODE
// BYTECODE: cut.vhlo:0:0: error: unexpected error: {{.+}}
// BYTECODE-NEXT: cut.vhlo:0:0: error: unexpected note: in bytecode version {{[0-9]+}} produced by: StableHLO_v
// BYTECODE-NEXT: <unknown>:0: error: unexpected error: failed to deserialize portable artifact

// PLAIN: error: check.expect_eq_const failed in @wrong_sum
// PLAIN: error: custom op 'stablehlo.no_such_op' is unknown
func.func @wrong_sum() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = stablehlo.add %0, %0 : tensor<3xi32>
  // expected-error @+1 {{check.expect_eq_const failed in @wrong_sum: Element values don't match: 6 (actual) vs 7 (expected) at index [2]; 1 of 3 elements differ}}
  check.expect_eq_const %1, dense<[2, 4, 7]> : tensor<3xi32>
  func.return
}

// -----

func.func @main() {
  // expected-error @+1 {{custom op 'stablehlo.no_such_op' is unknown}}
  %0 = stablehlo.no_such_op : tensor<i32>
  func.return
}
