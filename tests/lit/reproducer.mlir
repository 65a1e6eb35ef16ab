// Reproducers in MLIR's own format, --run-reproducer, --verify-each and bytecode versions.

// A failing pipeline's reproducer goes where --mlir-pass-pipeline-crash-reproducer says, and
// --run-reproducer reruns the pipeline it records (so does a plain --pass-pipeline).
// RUN: not shlo-opt %s --canonicalize --shlo-verify-flat --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir 2>&1 | filecheck %s --check-prefix=FAIL
// RUN: filecheck %s --check-prefix=REPRO < %t.repro.mlir
// RUN: not shlo-opt --run-reproducer %t.repro.mlir 2>&1 | filecheck %s --check-prefix=AGAIN
// FAIL: error: not flat: expected one public function, found 2
// FAIL: shlo-opt: pipeline segment [stablehlo] failed; reproducer: {{.*}}.repro.mlir
// REPRO: func.func @f
// REPRO: mlir_reproducer: {
// REPRO-NEXT: pipeline: "builtin.module(canonicalize, shlo-verify-flat)",
// AGAIN: error: not flat: expected one public function, found 2

// Without a path, reproducers go to reproducers/ in the cache folder, newest 20 kept; a pipeline
// of checks only (its failure is its answer) and --no-reproducer write none.
// RUN: rm -rf %t.cache
// RUN: env SHLO_CACHE_DIR=%t.cache not shlo-opt %s --canonicalize --shlo-verify-flat 2>&1 | filecheck %s --check-prefix=CACHED
// RUN: env SHLO_CACHE_DIR=%t.cache not shlo-opt %s --shlo-verify-flat 2>&1 | filecheck %s --check-prefix=NONE
// RUN: env SHLO_CACHE_DIR=%t.cache not shlo-opt %s --canonicalize --shlo-verify-flat --no-reproducer 2>&1 | filecheck %s --check-prefix=NONE
// RUN: ls %t.cache/reproducers | wc -l | filecheck %s --check-prefix=ONE-FILE
// CACHED: reproducer: {{.*}}.cache/reproducers/shlo-repro-{{.*}}.mlir
// NONE: error: not flat: expected one public function, found 2
// NONE-NOT: reproducer:
// ONE-FILE: {{^ *}}1{{$}}

// A file that is not a reproducer says so.
// RUN: not shlo-opt --run-reproducer %s 2>&1 | filecheck %s --check-prefix=NOT-REPRO
// NOT-REPRO: shlo-opt: {{.*}}reproducer.mlir: no mlir_reproducer pipeline in this file (--run-reproducer)

// A reproducer whose pipeline string is damaged (a bad escape) is one line naming the file.
// RUN: sed 's/"builtin.module(canonicalize, shlo-verify-flat)"/"\\u12"/' %t.repro.mlir > %t.bad-repro.mlir
// RUN: not shlo-opt --run-reproducer %t.bad-repro.mlir 2>&1 | filecheck %s --check-prefix=BAD-REPRO
// BAD-REPRO: shlo-opt: {{.*}}bad-repro.mlir: the reproducer's pipeline is not a valid string ({{.*}})
// BAD-REPRO-NOT: internal error

// --verify-each is on by default, and takes LLVM's =false.
// RUN: shlo-opt %s --canonicalize --verify-each=false | filecheck %s --check-prefix=OUT
// RUN: shlo-opt %s --canonicalize --verify-each | filecheck %s --check-prefix=OUT
// OUT: func.func @g

// Bytecode at a chosen version reads back; a version MLIR cannot write is one clear line, and
// the output file is left as it was.
// RUN: shlo-opt %s --emit-bytecode --emit-bytecode-version=1 | shlo-opt | filecheck %s --check-prefix=OUT
// RUN: echo kept > %t.bc && not shlo-opt %s --emit-bytecode --emit-bytecode-version=999 -o %t.bc 2>&1 | filecheck %s --check-prefix=VERSION
// RUN: filecheck %s --check-prefix=KEPT < %t.bc
// VERSION: shlo-opt: cannot write MLIR bytecode: Unable to honor desired bytecode version 999
// VERSION-NOT: internal error
// KEPT: kept

func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
