// Bad input gets `file:line:col: error:` or `shlo-opt: ...`, exit 1, and never a traceback.
// RUN: not shlo-opt %s 2>&1 | filecheck %s --check-prefix=MALFORMED
// RUN: not shlo-opt %s --canonicalise 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(symbol-dec)' 2>&1 | filecheck %s --check-prefix=PIPELINE
// RUN: not shlo-opt %t.does-not-exist.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: printf 'ML\xefR\x00garbage' > %t.mlirbc
// RUN: not shlo-opt %t.mlirbc 2>&1 | filecheck %s --check-prefix=BYTECODE
// RUN: not shlo-opt %s extra.mlir 2>&1 | filecheck %s --check-prefix=EXTRA

// MALFORMED: errors.mlir:[[# @LINE + 9]]:26: error: use of undeclared SSA value name
// MALFORMED-NOT: Traceback
// FLAG: shlo-opt: unknown pass or option '--canonicalise'; did you mean '--canonicalize'{{.*}}? (see 'shlo-opt --list-passes')
// PIPELINE: shlo-opt: unknown pass 'symbol-dec'; did you mean 'symbol-dce'
// MISSING: shlo-opt: could not open input file {{.*}}does-not-exist.mlir: No such file or directory
// BYTECODE: error:
// BYTECODE-NOT: Traceback
// EXTRA: shlo-opt: unexpected argument 'extra.mlir' (one input file at most)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %nope : tensor<4xf32>
  return %0 : tensor<4xf32>
}
