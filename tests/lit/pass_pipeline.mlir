// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(canonicalize, cse))' | filecheck %s
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(cse))' --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP
// RUN: not shlo-opt %s --pass-pipeline='cse' 2>&1 | filecheck %s --check-prefix=UNANCHORED
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(cse)' --canonicalize 2>&1 | filecheck %s --check-prefix=MIXED
// RUN: not shlo-opt %s --pass-pipeline='builtin.module(func.func(shlo-op-stats))' 2>&1 | filecheck %s --check-prefix=NESTED-PY

// CHECK-LABEL: func.func @twice
// CHECK:         %[[A:.+]] = stablehlo.add %arg0, %arg0
// CHECK-NOT:     stablehlo.add
// CHECK:         stablehlo.multiply %[[A]], %[[A]]
func.func @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  %1 = stablehlo.add %x, %x : tensor<2xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<2xf32>
  return %2 : tensor<2xf32>
}

// DUMP: [stablehlo] builtin.module(func.func(cse))
// UNANCHORED: shlo-opt: pipeline 'cse' must be one anchored pipeline, e.g. 'builtin.module(cse)'
// SYNTAX: shlo-opt: unterminated ')' in pipeline 'builtin.module(cse'
// MIXED: shlo-opt: '--pass-pipeline' cannot be used with individual pass flags (--canonicalize)
// NESTED-PY: shlo-opt: Python passes run on the top-level module only: 'func.func(shlo-op-stats)' nests one

// The dumped pipeline spells out every option value, so it pastes back as --pass-pipeline.
// RUN: shlo-opt %s --canonicalize --dump-pass-pipeline 2>&1 >/dev/null | filecheck %s --check-prefix=VALUES
// RUN: shlo-opt %s --pass-pipeline='builtin.module(canonicalize{cse-between-iterations=false    max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true})' | filecheck %s --check-prefix=PASTED
// VALUES: [stablehlo] builtin.module(canonicalize{{[{]}}{{.*}}max-iterations=10 {{.*}}top-down=true})
// PASTED: func.func
