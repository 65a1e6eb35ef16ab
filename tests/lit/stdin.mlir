// Input from stdin (no argument, or '-'); diagnostics name <stdin>.
// RUN: shlo-opt < %s | filecheck %s
// RUN: cat %s | shlo-opt - --canonicalize | filecheck %s
// RUN: not shlo-opt < %inputs/malformed.mlir 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not shlo-opt < %inputs/first_line_op.mlir 2>&1 | filecheck %s --check-prefix=FIRSTLINE

// CHECK: func.func @from_stdin
// ERR: <stdin>:3:26: error: use of undeclared SSA value name
// An operation on the very first line keeps its columns too.
// FIRSTLINE: <stdin>:2:3: error: type of return operand 0 ('i32') doesn't match function result type ('i64') in function @g
func.func @from_stdin() {
  return
}
