// An error that a verifier reports while the parse still succeeds (VHLO's dict_v1 with a key
// that is not a VHLO attribute) is printed once, as mlir-opt prints it, with the module printed
// and exit status 0; --verify-diagnostics sees it, so an expected-error on it passes and, the
// expectation removed, fails as unexpected.  The bindings would otherwise drop it with the
// parse's error capture.  Chunks of one op and of several ops are parsed differently: both.
// RUN: shlo-opt %s --split-input-file 2>/dev/null | filecheck %s
// RUN: shlo-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// RUN: shlo-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=VERIFY
// RUN: sed 's/expected-error/dropped/' %s \
// RUN:   | not shlo-opt --split-input-file --verify-diagnostics 2>&1 \
// RUN:   | filecheck %s --check-prefix=UNEXPECTED
// RUN: not shlo-opt %S/Inputs/malformed.mlir 2>&1 | filecheck %s --check-prefix=MALFORMED

// CHECK: func.func @one_op() attributes {vhlo.attr = #vhlo.dict_v1
// VERIFY: func.func @one_op
func.func @one_op() -> () attributes {
  // expected-error @+1 {{expected VHLO key attribute}}
  vhlo.attr = #vhlo.dict_v1<{"attr1" = #vhlo.array_v1<[]>}>
} {
  return
}

// -----

// CHECK: func.func @two_ops() attributes {vhlo.attr = #vhlo.dict_v1
// VERIFY: func.func @two_ops
func.func @two_ops() -> () attributes {
  // expected-error @+1 {{expected VHLO key attribute}}
  vhlo.attr = #vhlo.dict_v1<{"attr2" = #vhlo.array_v1<[]>}>
} {
  return
}
func.func @other() {
  return
}

// ERR: parse_reported_errors.mlir:18:28: error: expected VHLO key attribute
// ERR-NEXT: vhlo.attr
// ERR-NEXT: ^
// ERR-NEXT: parse_reported_errors.mlir:29:28: error: expected VHLO key attribute
// ERR-NEXT: vhlo.attr
// ERR-NEXT: ^
// ERR-EMPTY:
// UNEXPECTED: error: unexpected error: expected VHLO key attribute
// UNEXPECTED: error: unexpected error: expected VHLO key attribute

// A parse that fails reports its errors once, from the failed parse.
// MALFORMED-COUNT-1: error:
// MALFORMED-NOT: error:
