// The three options of upstream's optimization passes (Passes.td at 7b1b157), spelled and
// parsed as upstream's (LLVM's cl::opt parsers for bool and int64_t), for both passes.
// RUN: shlo-opt %s --stablehlo-aggressive-folder | filecheck %s --check-prefix=DEFAULT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=fold-op-element-limit=3 | filecheck %s --check-prefix=LIMIT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=fold-op-element-limit=0x3 | filecheck %s --check-prefix=LIMIT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=fold-op-element-limit=03 | filecheck %s --check-prefix=LIMIT
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(stablehlo-aggressive-folder{fold-op-element-limit=0b11}))' | filecheck %s --check-prefix=LIMIT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=fold-op-element-limit=-1 | filecheck %s --check-prefix=DEFAULT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=optimize-float=false | filecheck %s --check-prefix=NOFLOAT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=optimize-float=False | filecheck %s --check-prefix=NOFLOAT
// RUN: shlo-opt %s '--stablehlo-aggressive-folder=optimize-float=0 fold-op-element-limit=3' | filecheck %s --check-prefix=NOFLOAT
// RUN: shlo-opt %s --stablehlo-aggressive-folder=assume-no-undeclared-side-effects | filecheck %s --check-prefix=PURE
// RUN: shlo-opt %s --stablehlo-aggressive-folder=assume-no-undeclared-side-effects=TRUE | filecheck %s --check-prefix=PURE
// RUN: shlo-opt %s --stablehlo-target-independent-optimization=assume-no-undeclared-side-effects=1 | filecheck %s --check-prefix=PURE
// RUN: shlo-opt %s --pass-pipeline='builtin.module(func.func(canonicalize, stablehlo-aggressive-folder{assume-no-undeclared-side-effects=true}, cse))' | filecheck %s --check-prefix=PURE
// RUN: not shlo-opt %s --stablehlo-aggressive-folder=optimize-float=on 2>&1 | filecheck %s --check-prefix=BAD-BOOL
// RUN: not shlo-opt %s --stablehlo-aggressive-folder=fold-op-element-limit=1_0 2>&1 | filecheck %s --check-prefix=BAD-INT
// RUN: not shlo-opt %s --stablehlo-aggressive-folder=fold-op-element-limit=9223372036854775808 2>&1 | filecheck %s --check-prefix=BAD-INT
// RUN: not shlo-opt %s --stablehlo-target-independent-optimization=fold-limit=3 2>&1 | filecheck %s --check-prefix=UNKNOWN

// BAD-BOOL: 'on' is not a valid
// BAD-INT: fold-op-element-limit
// BAD-INT-SAME: is not a valid
// UNKNOWN: pass 'stablehlo-target-independent-optimization' has no option 'fold-limit'

// The element limit stops concatenate, reverse and convert folds of bigger results; splats
// and elementwise arithmetic are exempt, as upstream's patterns check it where they do.  A
// negative limit, read as upstream's size_t, is no limit.
// DEFAULT-LABEL: func.func @limits
// DEFAULT-NOT: stablehlo.concatenate
// DEFAULT-NOT: stablehlo.reverse
// DEFAULT-NOT: stablehlo.convert
// LIMIT-LABEL: func.func @limits
// LIMIT-DAG: %[[SPLAT:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
// LIMIT-DAG: %[[SUM:.*]] = stablehlo.constant dense<[2, 4, 6, 8]> : tensor<4xi32>
// LIMIT-DAG: stablehlo.concatenate
// LIMIT-DAG: stablehlo.reverse
// LIMIT-DAG: stablehlo.convert {{.*}} : (tensor<4xi32>) -> tensor<4xf32>
// LIMIT-DAG: %[[SMALL:.*]] = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// LIMIT: return {{.*}}, %[[SUM]], {{.*}}, %[[SPLAT]], %[[SMALL]]
// NOFLOAT-LABEL: func.func @limits
// NOFLOAT: stablehlo.broadcast_in_dim
// NOFLOAT: stablehlo.convert {{.*}} : (tensor<3xi32>) -> tensor<3xf32>
func.func @limits() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
  %b = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %1 = stablehlo.reverse %b, dims = [0] : tensor<4xi32>
  %2 = stablehlo.add %b, %b : tensor<4xi32>
  %3 = stablehlo.convert %b : (tensor<4xi32>) -> tensor<4xf32>
  %s = stablehlo.constant dense<2.0> : tensor<f32>
  %4 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %5 = stablehlo.convert %c : (tensor<3xi32>) -> tensor<3xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>
}

// optimize-float=false keeps float arithmetic and float converts; a float compare (its result
// is i1) and the unary math functions fold regardless, as upstream's do.
// DEFAULT-LABEL: func.func @floats
// DEFAULT-NOT: stablehlo.add
// DEFAULT-NOT: stablehlo.convert
// NOFLOAT-LABEL: func.func @floats
// NOFLOAT-DAG: %[[LESS:.*]] = stablehlo.constant dense<[false, true]> : tensor<2xi1>
// NOFLOAT-DAG: %[[COS:.*]] = stablehlo.constant dense<[1.000000e+00, 0.540302277]> : tensor<2xf32>
// NOFLOAT-DAG: %[[INTS:.*]] = stablehlo.constant dense<[0, 1]> : tensor<2xi8>
// NOFLOAT-DAG: %[[SUM:.*]] = stablehlo.add
// NOFLOAT-DAG: %[[HALF:.*]] = stablehlo.convert {{.*}} : (tensor<2xf32>) -> tensor<2xf16>
// NOFLOAT: return %[[SUM]], %[[LESS]], %[[COS]], %[[HALF]], %[[INTS]]
func.func @floats() -> (tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xf16>, tensor<2xi8>) {
  %x = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %y = stablehlo.constant dense<[0.0, 2.0]> : tensor<2xf32>
  %0 = stablehlo.add %x, %y : tensor<2xf32>
  %1 = stablehlo.compare LT, %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = stablehlo.cosine %x : tensor<2xf32>
  %3 = stablehlo.convert %x : (tensor<2xf32>) -> tensor<2xf16>
  %i = stablehlo.constant dense<[256, 257]> : tensor<2xi32>
  %4 = stablehlo.convert %i : (tensor<2xi32>) -> tensor<2xi8>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<2xi1>, tensor<2xf32>, tensor<2xf16>, tensor<2xi8>
}

// A dead loop that never runs and calls a function: kept by default (a call may have side
// effects), erased when undeclared side effects are assumed away; a declared effect (an
// outfeed) keeps it either way.
// DEFAULT-LABEL: func.func @dead_loop_calls
// DEFAULT: stablehlo.while
// DEFAULT: func.call @callee
// PURE-LABEL: func.func @dead_loop_calls
// PURE-NOT: stablehlo.while
// PURE: return
func.func @dead_loop_calls(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64>
    cond {
    %false = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %false : tensor<i1>
  } do {
    %1 = func.call @callee(%iterArg) : (tensor<i64>) -> tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }
  return %arg0 : tensor<i64>
}

// PURE-LABEL: func.func @dead_loop_outfeeds
// PURE: stablehlo.while
// PURE: "stablehlo.outfeed"
func.func @dead_loop_outfeeds(%arg0: tensor<i64>, %token: !stablehlo.token) -> tensor<i64> {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64>
    cond {
    %false = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %false : tensor<i1>
  } do {
    %1 = "stablehlo.outfeed"(%iterArg, %token) <{outfeed_config = ""}> : (tensor<i64>, !stablehlo.token) -> !stablehlo.token
    stablehlo.return %iterArg : tensor<i64>
  }
  return %arg0 : tensor<i64>
}

func.func private @callee(%arg0: tensor<i64>) -> tensor<i64>
