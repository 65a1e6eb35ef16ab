// Bad input ends in one clear line (or MLIR's located diagnostics) and exit 1, never a
// traceback or a silent death; LLVM's option spellings are taken as mlir-opt takes them.

// MLIR's bytecode reader aborts on this damaged file in any process that parses it; shlo-opt
// and shlo-translate read it in a child first and say so.
// RUN: not shlo-opt %inputs/reader_crash.mlirbc 2>&1 | filecheck %s --check-prefix=CRASH
// RUN: not shlo-translate %inputs/reader_crash.mlirbc 2>&1 | filecheck %s --check-prefix=CRASH
// CRASH: reader_crash.mlirbc: MLIR's bytecode reader crashed on this input (SIGABRT: {{.*}}); the file is damaged or not MLIR bytecode (reproduce with: torch-mlir-opt {{.*}}reader_crash.mlirbc)
// CRASH-NOT: Traceback

// A damaged file whose MLIR error message is not UTF-8.
// RUN: not shlo-opt %inputs/non_utf8_error.mlirbc 2>&1 | filecheck %s --check-prefix=UTF8
// UTF8: non_utf8_error.mlirbc:0:0: error: malformed input: MLIR could not read it, and its message is not text
// UTF8-NOT: Traceback

// LLVM's spellings: -o=FILE, --switch=true|TRUE|True|1|false|FALSE|False|0 (parser<bool>),
// --verify-diagnostics[=all|only-expected] (an enum: not a boolean).
// RUN: shlo-opt %s --verify-each=0 --mlir-disable-threading=True -o=%t.mlir && filecheck %s --check-prefix=SPELL < %t.mlir
// RUN: not shlo-opt %s --verify-diagnostics=false 2>&1 | filecheck %s --check-prefix=SWITCH
// RUN: not shlo-opt %s --mlir-disable-threading=on 2>&1 | filecheck %s --check-prefix=BOOL
// SPELL: func.func @main
// SWITCH: shlo-opt: for the --verify-diagnostics option: Cannot find option named 'false'!
// BOOL: shlo-opt: for the --mlir-disable-threading option: 'on' is invalid value for boolean argument! Try 0 or 1

// An integer option's bad value is one line in LLVM's words, exit 1 (not argparse's usage).
// RUN: not shlo-opt %s --mlir-elide-elementsattrs-if-larger=abc 2>&1 | filecheck %s --check-prefix=UINT
// UINT: shlo-opt: for the --mlir-elide-elementsattrs-if-larger option: 'abc' value invalid for uint argument!
// UINT-NOT: usage

// An empty split marker is the default one, as in mlir-opt; empty pipeline elements are refused.
// RUN: shlo-opt %s --split-input-file= | filecheck %s --check-prefix=MARKER
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(,,)' 2>&1 | filecheck %s --check-prefix=EMPTY
// MARKER: func.func @main
// EMPTY: shlo-opt: empty pipeline element in ',,'

// A closed pipe (`| head`) ends quietly.
// RUN: %PYTHON -c "print(''.join(f'func.func private @f{i}()\n' for i in range(50000)))" > %t.big.mlir
// RUN: shlo-opt %t.big.mlir 2> %t.err | head -c 1 > /dev/null
// RUN: filecheck %s --check-prefix=PIPE --allow-empty < %t.err
// PIPE-NOT: {{.}}

// An integer division by zero kills the interpreter with SIGFPE; the error says so.  A program
// that does not end is stopped by --timeout.
// RUN: not shlo-translate --interpret %s 2>&1 | filecheck %s --check-prefix=FPE
// RUN: not shlo-translate --interpret --timeout 1 %inputs/endless_loop.mlir 2>&1 | filecheck %s --check-prefix=TIMEOUT
// FPE: bad_input.mlir:[[# @LINE + 1]]:1: error: @main: the interpreter aborted: SIGFPE (an arithmetic error such as an integer division by zero)
func.func @main() -> tensor<i32> {
  %seven = stablehlo.constant dense<7> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.divide %seven, %zero : tensor<i32>
  return %0 : tensor<i32>
}
// TIMEOUT: endless_loop.mlir:2:1: error: @main: timed out after 1 s
