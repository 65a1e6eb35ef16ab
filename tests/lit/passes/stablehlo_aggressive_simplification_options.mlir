// stablehlo-aggressive-simplification's one option (Passes.td at 7b1b157 enables only
// fold-op-element-limit for it): select with a non-splat constant predicate over constants
// folds only where the predicate has at most that many elements (SelectOpCanon compares the
// count with the limit as int64_t, so a negative limit stops it); a splat predicate is exempt.
// RUN: shlo-opt %s --stablehlo-aggressive-simplification | filecheck %s --check-prefix=FOLD
// RUN: shlo-opt %s --stablehlo-aggressive-simplification=fold-op-element-limit=4 | filecheck %s --check-prefix=FOLD
// RUN: shlo-opt %s --stablehlo-aggressive-simplification=fold-op-element-limit=3 | filecheck %s --check-prefix=KEEP
// RUN: shlo-opt %s --stablehlo-aggressive-simplification=fold-op-element-limit=0x3 | filecheck %s --check-prefix=KEEP
// RUN: shlo-opt %s --stablehlo-aggressive-simplification=fold-op-element-limit=-1 | filecheck %s --check-prefix=KEEP
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-aggressive-simplification{fold-op-element-limit=3}))' | filecheck %s --check-prefix=KEEP
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(cse, stablehlo-aggressive-simplification{fold-op-element-limit=0}))' | filecheck %s --check-prefix=KEEP
// The folder's other options are not this pass's.
// RUN: not shlo-opt %s --stablehlo-aggressive-simplification=optimize-float=false 2>&1 | filecheck %s --check-prefix=NO-OPTION
// RUN: not shlo-opt %s --stablehlo-aggressive-simplification=assume-no-undeclared-side-effects 2>&1 | filecheck %s --check-prefix=NO-OPTION
// RUN: not shlo-opt %s --stablehlo-aggressive-simplification=fold-op-element-limit=4x 2>&1 | filecheck %s --check-prefix=BAD-INT

// FOLD-LABEL: func.func @select_limit
// FOLD: %[[PICKED:.*]] = stablehlo.constant dense<[1, 20, 30, 4]> : tensor<4xi32>
// FOLD-NOT: stablehlo.select
// FOLD: return %[[PICKED]], %arg0
// KEEP-LABEL: func.func @select_limit
// KEEP: %[[KEPT:.*]] = stablehlo.select
// KEEP: return %[[KEPT]], %arg0
// NO-OPTION: pass 'stablehlo-aggressive-simplification' has no option '{{optimize-float|assume-no-undeclared-side-effects}}' (options: fold-op-element-limit)
// BAD-INT: option 'fold-op-element-limit': '4x' is not a valid Int64
func.func @select_limit(%t: tensor<4xi32>, %f: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %mask = stablehlo.constant dense<[true, false, false, true]> : tensor<4xi1>
  %ones = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %tens = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi32>
  %0 = stablehlo.select %mask, %ones, %tens : tensor<4xi1>, tensor<4xi32>
  %true = stablehlo.constant dense<true> : tensor<4xi1>
  %1 = stablehlo.select %true, %t, %f : tensor<4xi1>, tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
