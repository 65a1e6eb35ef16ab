// -o is written atomically: a failed run leaves an existing output file as it was.
// RUN: echo "previous contents" > %t.out
// RUN: not shlo-opt %inputs/malformed.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=ERR
// RUN: filecheck %s --check-prefix=KEPT < %t.out
// RUN: not shlo-opt %inputs/malformed.mlir --canonicalize -o %t.out
// RUN: filecheck %s --check-prefix=KEPT < %t.out
// RUN: shlo-opt %s --canonicalize -o %t.out
// RUN: filecheck %s --check-prefix=GOOD < %t.out
// The output may be the input itself.
// RUN: cp %s %t.same.mlir
// RUN: shlo-opt %t.same.mlir --canonicalize -o %t.same.mlir
// RUN: filecheck %s --check-prefix=GOOD < %t.same.mlir
// An output folder that does not exist is one line and exit 1, from every tool.
// RUN: not shlo-opt %s -o %t.nowhere/out.mlir 2>&1 | filecheck %s --check-prefix=NOFOLDER
// RUN: not shlo-translate %s --serialize -o %t.nowhere/out.vhlo 2>&1 | filecheck %s --check-prefix=NOFOLDER
// An output symlink is written through: the link stays a link, its target gets the output, and
// a failure leaves the target as it was.
// RUN: rm -rf %t.links && mkdir -p %t.links/real && echo "previous contents" > %t.links/real/out.mlir
// RUN: ln -s real/out.mlir %t.links/link.mlir
// RUN: shlo-opt %s --canonicalize -o %t.links/link.mlir
// RUN: test -L %t.links/link.mlir
// RUN: filecheck %s --check-prefix=GOOD < %t.links/real/out.mlir
// RUN: echo "previous contents" > %t.links/real/out.mlir
// RUN: not shlo-opt %inputs/malformed.mlir -o %t.links/link.mlir
// RUN: test -L %t.links/link.mlir
// RUN: filecheck %s --check-prefix=KEPT < %t.links/real/out.mlir
// RUN: ls -a %t.links %t.links/real | not grep '\.tmp$'
// /dev/fd/1 (and /dev/stdout) is the descriptor the shell opened: `>` and `>>` work as for any
// tool, and the file the shell opened gets the output.
// RUN: shlo-opt %s -o /dev/fd/1 > %t.stdout.mlir
// RUN: filecheck %s --check-prefix=GOOD < %t.stdout.mlir
// RUN: echo "previous contents" > %t.stdout.mlir
// RUN: shlo-opt %s -o /dev/fd/1 >> %t.stdout.mlir
// RUN: filecheck %s --check-prefixes=KEPT,GOOD < %t.stdout.mlir
// NOFOLDER: cannot write {{.*}}.nowhere/out.{{mlir|vhlo}}: the folder {{.*}}.nowhere does not exist
// NOFOLDER-NOT: Traceback

// ERR: malformed.mlir:3:26: error: use of undeclared SSA value name
// ERR: shlo-opt: {{.*}}.out left as it was
// KEPT: previous contents
// GOOD: func.func @fine
func.func @fine() {
  return
}
